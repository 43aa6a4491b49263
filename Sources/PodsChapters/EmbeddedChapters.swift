/// The chapters stored in a media file, whatever its format.
public enum EmbeddedChapters {
    /// Reads the chapters of an MP3 (ID3v2), MP4, Ogg or FLAC file; an
    /// empty list for other formats or a file without chapters.
    public static func read(from source: some ChapterByteSource) throws(ChapterError) -> [EpisodeChapter] {
        let head = try source.bytes(in: 0..<16)
        if let tagLength = ID3Chapters.tagLength(header: head) {
            let chapters = try ID3Chapters.read(from: source)
            if !chapters.isEmpty { return chapters }
            // A FLAC file may carry an ID3 tag in front of its own header.
            guard FileOffset.fits(4, at: Int64(tagLength), in: source.length) else { return [] }
            let after = try source.bytes(in: Int64(tagLength)..<Int64(tagLength) + 4)
            if after.starts(with: Array("fLaC".utf8)) { return try VorbisChapters.read(from: OffsetBytes(base: source, offset: Int64(tagLength))) }
            return []
        }
        if MP4Chapters.matches(head) { return try MP4Chapters.read(from: source) }
        if VorbisChapters.matches(head) { return try VorbisChapters.read(from: source) }
        return []
    }
}

/// A source seen from `offset` on.
struct OffsetBytes<Base: ChapterByteSource>: ChapterByteSource {
    let base: Base
    let offset: Int64

    var length: Int64 { max(0, base.length - offset) }

    func bytes(in range: Range<Int64>) throws(ChapterError) -> [UInt8] {
        let lower = try FileOffset.advance(range.lowerBound, by: offset, what: "data")
        let upper = try FileOffset.advance(range.upperBound, by: offset, what: "data")
        return try base.bytes(in: lower..<upper)
    }
}
