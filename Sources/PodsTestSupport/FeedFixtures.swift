import Foundation
import PodsFeedParser

/// Parsed feeds for tests that write to a library without a server.
public enum FeedFixtures {
    /// A feed titled "Show" whose items are `guids`, newest first (a day
    /// apart), each titled `titlePrefix` + its guid, with one MP3 enclosure.
    public static func feed(_ guids: [String], titlePrefix: String = "") -> Feed {
        var feed = Feed()
        feed.title = "Show"
        feed.episodes = guids.enumerated().map { index, guid in
            var episode = Episode()
            episode.guid = guid
            episode.title = titlePrefix + guid
            episode.published = Date(timeIntervalSince1970: 1_800_000_000 - Double(index) * 86400)
            episode.enclosures = [Enclosure(url: "https://example.org/\(guid).mp3", type: "audio/mpeg", length: nil)]
            return episode
        }
        return feed
    }
}
