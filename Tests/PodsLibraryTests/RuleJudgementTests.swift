import Foundation
import PodsFeedParser
import PodsLibrary
import PodsTestSupport
import Testing

/// What the library does for the podcasts' rules: each arrival judged once,
/// ignored ones played with nothing for the sync, the listener's touch final.
@Suite struct RuleJudgementTests {
    private static func feed(_ guids: [String]) -> Feed { FeedFixtures.feed(guids, titlePrefix: "Episode ") }

    @Test func arrivalsAreJudgedOnceAndIgnoredOnesTellTheSyncNothing() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let podcast = try library.subscribe(feedURL: "https://example.org/feed", feed: Self.feed(["a", "b", "c"]), etag: nil, lastModified: nil)
        let byGuid = { (guid: String) throws -> Int64 in
            try #require(try library.episodes(podcastId: podcast.id).first { $0.episode.guid == guid }?.id)
        }
        // Touched before the rules ran: queued (a) is not judged; every title is asked about once.
        try library.enqueue([try byGuid("a")])
        var asked: [String] = []
        let ignored = try library.judgeArrivedEpisodes { episode in
            asked.append(episode.title)
            return episode.title.hasSuffix("b") || episode.title.hasSuffix("a")
        }
        #expect(asked.sorted() == ["Episode b", "Episode c"] && ignored.map(\.title) == ["Episode b"])
        let b = try byGuid("b")
        #expect(try library.isIgnored(b) && (try library.episode(b)).completed)
        #expect(try library.episodes(podcastId: podcast.id, unplayedOnly: true, limit: 10).map(\.episode.guid).sorted() == ["a", "c"])
        #expect(try library.queuedActions(limit: 100).allSatisfy { $0.episodeId != b })
        // A full sync's first upload leaves it out too.
        try library.markCompleted(try byGuid("c"), true)
        try library.queueListeningState()
        #expect(try library.queuedActions(limit: 100).allSatisfy { $0.episodeId != b })

        // Judged once: only what a refresh brings is asked about next.
        asked = []
        _ = try library.applyRefresh(podcast.id, feed: Self.feed(["a", "b", "c", "d"]), etag: nil, lastModified: nil)
        #expect(try library.judgeArrivedEpisodes { asked.append($0.title); return true }.map(\.title) == ["Episode d"])
        #expect(asked == ["Episode d"])
        #expect(try library.judgeArrivedEpisodes { _ in true }.isEmpty)
        // With no rule that could ignore any, arrivals are judged kept unread: a rule set later leaves them be.
        _ = try library.applyRefresh(podcast.id, feed: Self.feed(["a", "b", "c", "d", "e"]), etag: nil, lastModified: nil)
        #expect(try library.judgeArrivedEpisodes(nil).isEmpty)
        #expect(try library.judgeArrivedEpisodes { _ in true }.isEmpty)

        // Marked unplayed by the listener, it is theirs: unplayed, no longer ignored.
        try library.markCompleted(b, false)
        #expect(try !library.isIgnored(b) && !(try library.episode(b)).completed)
    }

    @Test func aDownloadPinIsTheListenersAndTheFactsRetentionReads() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let podcast = try library.subscribe(feedURL: "https://example.org/feed", feed: Self.feed(["a", "b"]), etag: nil, lastModified: nil)
        let episodes = try library.episodes(podcastId: podcast.id).map(\.id)
        try library.setDownloadPinned(episodes[0], true)
        try library.setDownloadPinned(episodes[0], true)  // twice is once
        #expect(try library.isDownloadPinned(episodes[0]) && !(try library.isDownloadPinned(episodes[1])))
        try library.enqueue([episodes[1]])
        // Not cached: only the downloads waiting to begin are listed, with what retention needs to know.
        let facts = try library.downloadedEpisodes(alsoWaiting: episodes)
        #expect(facts.count == 2 && facts.first { $0.id == episodes[0] }?.byHand == true)
        #expect(facts.first { $0.id == episodes[1] }?.queued == true && facts.allSatisfy { $0.podcastId == podcast.id })
        #expect(try library.downloadedEpisodes().isEmpty)
        try library.setDownloadPinned(episodes[0], false)
        #expect(try !library.isDownloadPinned(episodes[0]))
    }
}
