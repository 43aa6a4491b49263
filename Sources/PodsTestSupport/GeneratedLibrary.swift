import Foundation
import PodsFeedParser
import PodsLibrary

/// A large library made in-process, without feeds or a network: what the
/// paging and scale tests list.
public enum GeneratedLibrary {
    /// `podcasts` podcasts of `episodesEach` episodes each. Every seventh
    /// episode shares its date with the one before (ties the order breaks
    /// by feed order, then id), every hundredth is undated, and each has an
    /// HTML description of about `descriptionBytes`.
    @discardableResult
    public static func populate(_ library: Library, podcasts: Int, episodesEach: Int, descriptionBytes: Int = 200,
                                titleBytes: Int = 0, named name: String = "Show") throws -> [Podcast] {
        var made: [Podcast] = []
        let filler = String(repeating: "Lorem ipsum dolor sit amet. ", count: max(1, descriptionBytes / 28))
        for show in 0..<podcasts {
            var feed = Feed()
            feed.title = "\(name) \(show)"
            feed.author = "Host \(show)"
            feed.episodes = (0..<episodesEach).map { index in
                var episode = Episode()
                episode.guid = "\(name)\(show)-episode\(index)"
                let longTitle = titleBytes > 0 ? " " + String(repeating: "t", count: titleBytes) : ""
                episode.title = "Episode \(episodesEach - index) of show \(show)\(longTitle)"
                let day = 20_000 - index - (index % 7 == 6 ? 1 : 0) + show % 5
                episode.published = index % 100 == 99 ? nil : Date(timeIntervalSince1970: Double(day) * 86_400)
                episode.duration = Double(1800 + index % 1800)
                episode.descriptionHTML = "<p>\(filler)</p><p>Episode <b>\(index)</b></p>"
                episode.enclosures = [Enclosure(url: "http://127.0.0.1:1/show\(show)/\(index).mp3", type: "audio/mpeg", length: 1000)]
                return episode
            }
            made.append(try library.subscribe(feedURL: "http://127.0.0.1:1/\(name)/\(show).xml", feed: feed, etag: nil, lastModified: nil))
        }
        return made
    }
}
