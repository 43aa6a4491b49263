// libFuzzer harness: a podcast:chapters JSON file, as fetched from a feed's
// chapters URL. Built by scripts/fuzz with the PodsChapters sources.
import Foundation

public func fuzzJSONChapters(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? JSONChapters.parse(Data(bytes: data, count: size))
    return 0
}
