// libFuzzer harness: an audio file's own chapters (ID3v2 CHAP/CTOC, MP4 chpl
// and QuickTime chapter tracks, Vorbis/Opus/FLAC comments), as podsd reads
// them from every episode it plays. Built by scripts/fuzz with the
// PodsChapters sources; a crash or sanitizer report is a bug.
import Foundation

public func fuzzChapters(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? EmbeddedChapters.read(from: InMemoryBytes(Array(UnsafeBufferPointer(start: data, count: size))))
    return 0
}
