import Foundation
import PodsFeedParser
import PodsLibrary
import PodsTestSupport
import Testing

@Suite(.timeLimit(.minutes(10))) struct LibraryPagingTests {
    @Test func pagingA50kLibraryReturnsEveryEpisodeOnceInOrder() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try Library(directory: directory)
        let podcasts = try await onOwnThread { try GeneratedLibrary.populate(library, podcasts: 25, episodesEach: 2000) }
        let expected = try library.episodes().map(\.id)
        #expect(expected.count == 50_000)

        // Pages of changing sizes, up to the cap: each episode once, in the whole list's order.
        var listed: [Int64] = []
        var cursor: EpisodeCursor?
        var sizes = [1, 7, 1000, 250, 999]
        var pages = 0
        while true {
            let size = sizes.removeFirst()
            sizes.append(size)
            let page = try library.episodes(EpisodeFilter(), after: cursor, limit: size)
            #expect(page.count <= size)
            listed += page.map(\.id)
            pages += 1
            guard page.count == size, let last = page.last else { break }
            let text: String = last.cursor.description
            cursor = EpisodeCursor(text)  // the cursor survives as text
            #expect(cursor == last.cursor)
        }
        #expect(listed == expected, "\(listed.count) listed in \(pages) pages")
        #expect(Set(listed).count == 50_000)

        // A podcast's unplayed episodes page the same way.
        let podcast = try #require(podcasts.last)
        let someID = try #require(try library.episodes(EpisodeFilter(podcastId: podcast.id), after: nil, limit: 3).last?.id)
        try library.markCompleted(someID, true)
        var unplayed: [Int64] = []
        cursor = nil
        while true {
            let page = try library.episodes(EpisodeFilter(podcastId: podcast.id, unplayedOnly: true), after: cursor, limit: 300)
            unplayed += page.map(\.id)
            guard page.count == 300, let lastItem = page.last else { break }
            cursor = lastItem.cursor
        }
        #expect(unplayed == (try library.episodes(podcastId: podcast.id, unplayedOnly: true).map(\.id)))
        #expect(unplayed.count == 1999 && !unplayed.contains(someID))
    }

    @Test func aPageThatFillsUpStopsReadingRows() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try Library(directory: directory)
        _ = try GeneratedLibrary.populate(library, podcasts: 2, episodesEach: 50)
        var handed: [Int64] = []
        try library.forEachEpisode(EpisodeFilter(), after: nil, limit: 1000) { summary in
            handed.append(summary.id)
            return handed.count < 4  // the fourth does not fit
        }
        #expect(handed == (try library.episodes(EpisodeFilter(), after: nil, limit: 4).map(\.id)))
        var all = 0
        try library.forEachEpisode(EpisodeFilter(), after: nil, limit: 60) { _ in all += 1; return true }
        #expect(all == 60)
    }

    @Test func aPageAfterTheLastIsEmptyAndChangesBetweenPagesNeitherRepeatNorSkip() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try Library(directory: directory)
        let podcast = try #require(try GeneratedLibrary.populate(library, podcasts: 1, episodesEach: 120).first)
        let all = try library.episodes(EpisodeFilter(), after: nil, limit: 1000)
        #expect(all.count == 120)
        let end = try #require(all.last).cursor
        #expect(try library.episodes(EpisodeFilter(), after: end, limit: 10).isEmpty)

        // Newer episodes arrive and an old one leaves between two pages.
        let first = try library.episodes(EpisodeFilter(), after: nil, limit: 50)
        var feed = Feed()
        feed.title = "Show 0"
        var newer = Episode()
        newer.guid = "brand-new"
        newer.title = "Brand new"
        newer.published = Date()
        let kept = try library.episodes(podcastId: podcast.id).map(\.episode)
        feed.episodes = [newer] + kept.filter { $0.guid != all[80].guid }
        let summary = try library.applyRefresh(podcast.id, feed: feed, etag: nil, lastModified: nil)
        #expect((summary.added, summary.updated, summary.removed) == (1, 0, 1))
        let rest = try library.episodes(EpisodeFilter(), after: try #require(first.last).cursor, limit: 1000)
        #expect((first + rest).map(\.id) == all.map(\.id).filter { $0 != all[80].id })
    }

    @Test func cursorsFromElsewhereAreRefused() {
        for text in ["", "e1", "e1.zz.2", "e1.7ff0000000000000.2", "o.12", "e1.0.1.2", "e2.0.2", "e1.0.x"] {
            #expect(EpisodeCursor(text) == nil, "\(text)")
        }
        #expect(EpisodeCursor("e1.0.2") != nil)
    }
}
