import Foundation
import PodsChapters
import PodsPlayback

/// A local file's bytes, for reading its chapters.
package struct FileChapterBytes: ChapterByteSource {
    package let handle: FileHandle
    package let length: Int64

    package init(path: String) throws(ChapterError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ChapterError("cannot open \(path)", transient: true) }
        self.handle = handle
        self.length = Int64((try? handle.seekToEnd()) ?? 0)
    }

    package func bytes(in range: Range<Int64>) throws(ChapterError) -> [UInt8] {
        let lower = max(0, min(range.lowerBound, length))
        let count = Int(max(0, min(range.upperBound, length) - lower))
        guard count > 0 else { return [] }
        do {
            try handle.seek(toOffset: UInt64(lower))
            return Array(try handle.read(upToCount: count) ?? Data())
        } catch {
            throw ChapterError("cannot read the file: \(error.localizedDescription)", transient: true)
        }
    }
}

/// A `RandomAccessMedia`'s bytes (the range cache: only what is read is
/// downloaded), waiting for them until `deadline`.
package struct MediaChapterBytes: ChapterByteSource {
    package let media: any RandomAccessMedia
    package let deadline: ContinuousClock.Instant

    package var length: Int64 { media.length }

    package func bytes(in range: Range<Int64>) throws(ChapterError) -> [UInt8] {
        let lower = max(0, min(range.lowerBound, length))
        let count = Int(max(0, min(range.upperBound, length) - lower))
        var result = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let outcome = result.withUnsafeMutableBytes { buffer in
                media.peek(at: lower + Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) {
                    ContinuousClock.now > deadline
                }
            }
            switch outcome {
            case .bytes(0): return Array(result.prefix(filled))
            case .bytes(let read): filled += read
            case .interrupted: throw ChapterError("the media's bytes did not come in time", transient: true)
            case .failed(let message): throw ChapterError(message, transient: true)
            }
        }
        return result
    }
}
