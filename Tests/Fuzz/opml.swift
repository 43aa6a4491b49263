// libFuzzer harness: an OPML file given to `pods import`. Built by
// scripts/fuzz with the PodsFeedParser sources.
import Foundation

public func fuzzOPML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? OPML.parse(Data(bytes: data, count: size))
    return 0
}
