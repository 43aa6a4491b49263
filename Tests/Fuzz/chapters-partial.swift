// libFuzzer harness: an audio file's chapters read as podsd reads a streamed
// file, through a range cache: each read may come back short (the server's
// chunk), and the bytes may stop coming at any point (an error, as a network
// failure or a deadline is). The first two bytes choose the chunk size and
// the point of failure. Built by scripts/fuzz with the PodsChapters sources.
import Foundation

struct PartialBytes: ChapterByteSource {
    let data: [UInt8]
    let chunk: Int
    let failAfter: Int
    let claimedLength: Int64

    var length: Int64 { claimedLength }

    func bytes(in range: Range<Int64>) throws(ChapterError) -> [UInt8] {
        precondition(range.lowerBound >= 0 && range.lowerBound <= range.upperBound, "a reader asked for \(range)")
        guard range.lowerBound < Int64(failAfter) else { throw ChapterError("the bytes did not come in time", transient: true) }
        let lower = Int(clamping: min(range.lowerBound, Int64(data.count)))
        let upper = Int(clamping: min(range.upperBound, Int64(data.count), Int64(lower) + Int64(chunk)))
        return Array(data[lower..<max(lower, upper)])
    }
}

public func fuzzPartialChapters(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 3 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let file = Array(bytes.dropFirst(3))
    let chunk = 1 + Int(bytes[0]) * 64
    let failAfter = bytes[1] == 0 ? Int.max : Int(bytes[1]) * 97
    // The length a server claims: the file's own, or one near the edges of Int64.
    let claimed: Int64 = switch bytes[2] % 4 {
    case 0: Int64(file.count)
    case 1: Int64.max
    case 2: Int64.max - Int64(bytes[2])
    default: Int64(file.count) + Int64(bytes[2]) << 24
    }
    _ = try? EmbeddedChapters.read(from: PartialBytes(data: file, chunk: chunk, failAfter: failAfter, claimedLength: claimed))
    return 0
}
