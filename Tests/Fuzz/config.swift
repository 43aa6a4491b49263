// libFuzzer harness: a config.toml as the listener (or anything that can
// write the file) leaves it; podsd reads it at start and on every change.
// Built by scripts/fuzz with the PodsSettings sources and TOMLKit (its
// toml++ parser instrumented too).
import Foundation

public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? ConfigFile.parse(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}
