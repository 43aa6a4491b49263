// libFuzzer harness: a transcript file as fetched from a feed's
// podcast:transcript URL (SRT, WebVTT, podcast JSON or HTML; the format is
// sniffed from the bytes). Built by scripts/fuzz with the PodsTranscripts
// and PodsFeedParser sources.
import Foundation

public func fuzzTranscript(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? Transcript.parse(Data(bytes: data, count: size))
    return 0
}
