// libFuzzer harness: a gpodder.net / Nextcloud gpoddersync server's JSON
// answers (subscription changes, an upload's answer, a page of episode
// actions). The first byte picks the answer; the rest is the body. Built
// by scripts/fuzz with the PodsSync and PodsFeedParser sources.
import Foundation

public func fuzzSyncAnswer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let body = Data(bytes: data + 1, count: size - 1)
    switch data[0] % 3 {
    case 0: _ = try? SyncAnswers.subscriptionChanges(body, from: "fuzz")
    case 1: _ = try? SyncAnswers.upload(body, from: "fuzz")
    default: _ = try? SyncAnswers.actions(body, from: "fuzz")
    }
    return 0
}
