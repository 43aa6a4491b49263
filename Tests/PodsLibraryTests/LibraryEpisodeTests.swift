import Foundation
import PodsFeedParser
import PodsLibrary
import PodsTestSupport
import Testing

@Suite(.timeLimit(.minutes(10))) struct LibraryEpisodeTests {
    private func feed(_ items: [(String, String, Int)]) -> Feed {
        var feed = Feed()
        feed.title = "Show"
        feed.episodes = items.map { guid, title, day in
            var episode = Episode()
            episode.guid = guid
            episode.title = title
            episode.published = Date(timeIntervalSince1970: Double(day) * 86400)
            episode.enclosures = [Enclosure(url: "http://example.org/\(guid).mp3", type: "audio/mpeg", length: nil)]
            return episode
        }
        return feed
    }

    private func withLibrary(_ body: (Library) throws -> Void) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(try Library(directory: directory))
    }

    @Test func autoDownloadTargetsAndArtworkAreReadWithoutEpisodeCounts() throws {
        try withLibrary { library in
            var withArt = feed([("a", "A", 1)])
            withArt.artworkURL = "http://example.org/art.png"
            let first = try library.subscribe(feedURL: "http://example.org/one", feed: withArt, etag: nil, lastModified: nil)
            let second = try library.subscribe(feedURL: "http://example.org/two", feed: feed([("b", "B", 1)]), etag: nil, lastModified: nil)
            #expect(try library.autoDownloadTargets().isEmpty)
            try library.setAutoDownload(second.id, count: 3)
            let targets = try library.autoDownloadTargets()
            #expect(targets.count == 1 && targets.first?.podcastId == second.id && targets.first?.count == 3)
            #expect(try library.podcastArtworkURLs() == ["http://example.org/art.png"])
            #expect(try library.podcasts().first { $0.id == first.id }?.artworkURL == "http://example.org/art.png")
        }
    }

    @Test func refreshUpdatesInPlaceByGuidAndKeepsWhatTheListenerStarted() throws {
        try withLibrary { library in
            let podcast = try library.subscribe(feedURL: "http://example.org/feed", feed: feed([("a", "A", 1), ("b", "B", 2), ("c", "C", 3)]),
                                                etag: nil, lastModified: nil)
            #expect(throws: LibraryError.self) {
                _ = try library.subscribe(feedURL: "http://example.org/feed", feed: feed([]), etag: nil, lastModified: nil)
            }
            let ids = Dictionary(uniqueKeysWithValues: try library.episodes(podcastId: podcast.id).map { ($0.episode.guid, $0.id) })
            try library.saveProgress(try #require(ids["b"]), position: 12)
            // The title changes; "b" (with progress) and "c" (without) leave; "d" arrives.
            let summary = try library.applyRefresh(podcast.id, feed: feed([("a", "A, renamed", 1), ("d", "D", 4)]), etag: "e1", lastModified: nil)
            #expect((summary.added, summary.updated, summary.removed) == (1, 1, 1))
            let episodes = try library.episodes(podcastId: podcast.id)
            #expect(episodes.map(\.episode.guid) == ["d", "b", "a"])  // newest first
            #expect(episodes.first { $0.episode.guid == "a" }?.id == ids["a"])  // same row, not a duplicate
            #expect(episodes.first { $0.episode.guid == "a" }?.episode.title == "A, renamed")
            #expect(episodes.first { $0.episode.guid == "b" }?.inFeed == false)
            #expect(try library.podcast(podcast.id).etag == "e1")
        }
    }

    @Test func oneCurrentEpisodeCompletionRestartsAndQueueComesBeforeNewer() throws {
        try withLibrary { library in
            let podcast = try library.subscribe(feedURL: "http://example.org/feed", feed: feed([("a", "A", 1), ("b", "B", 2), ("c", "C", 3)]),
                                                etag: nil, lastModified: nil)
            let ids = Dictionary(uniqueKeysWithValues: try library.episodes(podcastId: podcast.id).map { ($0.episode.guid, $0.id) })
            let (a, b, c) = (try #require(ids["a"]), try #require(ids["b"]), try #require(ids["c"]))
            try library.startPlaying(a)
            try library.startPlaying(b)
            #expect(try library.episodes().filter(\.currentlyPlaying).map(\.id) == [b])  // at most one
            #expect(try library.nextEpisode(after: a)?.id == b)  // the next newer one
            try library.enqueue([c])
            #expect(try library.nextEpisode(after: a)?.id == c)  // the queue comes first
            try library.enqueue([a], at: 0)
            try library.moveInQueue(a, to: 5)
            #expect(try library.queue().map(\.id) == [c, a])
            try library.dequeue(a)
            #expect(throws: LibraryError.self) { try library.dequeue(a) }
            try library.enqueue([b, b, a, b])  // named twice: queued once, where first named
            #expect(try library.queue().map(\.id) == [c, b, a])
            try library.dequeue(b)
            try library.dequeue(a)

            try library.markCompleted(a, true)
            try library.saveProgress(a, position: 30)
            try library.startPlaying(a)  // a finished episode starts again from 0
            let replayed = try library.episode(a)
            #expect(replayed.position == 0 && !replayed.completed && replayed.currentlyPlaying)
            try library.startPlaying(c)
            #expect(try library.queue().isEmpty)  // playing it takes it off the queue
            #expect(throws: LibraryError.self) { try library.startPlaying(999) }
        }
    }
}
