import Foundation
import PodsFeedParser
import PodsLibrary
import PodsTestSupport
import Testing

/// `itunes:type serial`: a show heard in order lists oldest first and starts
/// at its oldest unplayed; either order on request, paged without a repeat.
@Suite struct SerialOrderTests {
    private static func feed(serial: Bool) -> Feed {
        var feed = FeedFixtures.feed(["e5", "e4", "e3", "e2", "e1"])  // newest first, a day apart
        feed.type = serial ? "serial" : nil
        return feed
    }

    private static func titles(_ library: Library, _ filter: EpisodeFilter, pageSize: Int = 2) throws -> [String] {
        var titles: [String] = []
        var cursor: EpisodeCursor?
        while true {
            let page = try library.episodes(filter, after: cursor, limit: pageSize)
            titles += page.map(\.title)
            guard page.count == pageSize, let last = page.last else { return titles }
            cursor = last.cursor
        }
    }

    @Test func aSerialShowListsOldestFirstAndEitherOrderPages() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let serial = try library.subscribe(feedURL: "https://example.org/serial", feed: Self.feed(serial: true), etag: nil, lastModified: nil)
        #expect(serial.serial)
        let own = EpisodeFilter(podcastId: serial.id)
        #expect(try Self.titles(library, own) == ["e1", "e2", "e3", "e4", "e5"])
        #expect(try Self.titles(library, EpisodeFilter(podcastId: serial.id, order: .newestFirst)) == ["e5", "e4", "e3", "e2", "e1"])
        let first = try #require(try library.episodeToPlay(inPodcast: serial.id))
        #expect(try library.episode(first).episode.title == "e1")

        // A cursor of one order is refused by the other (it names a place in a list read the other way).
        let oldestCursor = try #require(try library.episodes(own, after: nil, limit: 2).last?.cursor)
        #expect(EpisodeCursor(oldestCursor.description) == oldestCursor)
        #expect(throws: LibraryError.self) {
            try library.episodes(EpisodeFilter(podcastId: serial.id, order: .newestFirst), after: oldestCursor, limit: 2)
        }

        // The whole library: newest first unless asked; oldest first is the same list read backwards.
        let other = try library.subscribe(feedURL: "https://example.org/episodic", feed: Self.feed(serial: false), etag: nil, lastModified: nil)
        let newestOfOther = try #require(try library.episodeToPlay(inPodcast: other.id))
        #expect(try !other.serial && library.episode(newestOfOther).episode.title == "e5")
        let newest = try Self.titles(library, EpisodeFilter(), pageSize: 3)
        #expect(newest.count == 10 && newest.prefix(2) == ["e5", "e5"])
        #expect(try Self.titles(library, EpisodeFilter(order: .oldestFirst), pageSize: 3) == newest.reversed())
        #expect(try Self.titles(library, EpisodeFilter(podcastId: other.id)) == ["e5", "e4", "e3", "e2", "e1"])

        // A refresh that says the show is episodic now lists it newest first.
        _ = try library.applyRefresh(serial.id, feed: Self.feed(serial: false), etag: nil, lastModified: nil)
        #expect(try Self.titles(library, own) == ["e5", "e4", "e3", "e2", "e1"])
    }
}
