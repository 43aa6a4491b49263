// libFuzzer harness: a feed document (RSS, Atom, or not a feed at all),
// parsed as a refresh parses it, with and without known items to skip.
// Built by scripts/fuzz with the PodsFeedParser sources and libxml2.
import Foundation

public func fuzzFeed(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let base = URL(string: "https://example.com/feed.xml")
    if let feed = try? FeedParser(baseURL: base, knownItems: []).parse(bytes) {
        // What podsd does with the feed's words: the refresh schedule reads the
        // update rule, playback chooses among the enclosures.
        _ = feed.details.updateFrequency?.period
        for episode in feed.episodes {
            _ = EnclosureChoice.choose(episode.enclosures, preferred: "opus", playable: ["mp3", "opus"])
        }
        let known = Set(feed.episodes.compactMap { $0.fingerprint?.value })
        _ = try? FeedParser(baseURL: base, knownItems: known).parse(bytes)
    }
    return 0
}
