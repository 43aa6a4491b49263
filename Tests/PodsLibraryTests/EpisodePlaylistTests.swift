import Foundation
import PodsFeedParser
import GRDB
@testable import PodsLibrary
import PodsSettings
import PodsTestSupport
import Testing

/// Playlists in the library: rules as SQL (podcasts, unplayed, downloaded,
/// length, age, a title pattern, order), lists kept by hand, what plays
/// next once one is active, and a 50,000-episode playlist read in pages.
@Suite struct EpisodePlaylistTests {
    /// Episodes `guids`, newest first, one day apart; lengths 60 s × their index + 1.
    private static func feed(_ guids: [String], title: String = "Show") -> Feed {
        var feed = FeedFixtures.feed(guids, titlePrefix: "Episode ")
        feed.title = title
        for index in feed.episodes.indices { feed.episodes[index].duration = Double(60 * (index + 1)) }
        return feed
    }

    private static func titles(_ library: Library, _ playlist: Int64) throws -> [String] {
        try library.playlistEpisodes(playlist, offset: 0, limit: 100).map(\.title)
    }

    @Test func rulesChooseAndOrder() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let show = try library.subscribe(feedURL: "https://example.org/a", feed: Self.feed(["a1", "a2", "a3", "best"]), etag: nil, lastModified: nil)
        let other = try library.subscribe(feedURL: "https://example.org/b", feed: Self.feed(["b1", "b2"], title: "Other"), etag: nil, lastModified: nil)
        let all = try library.createPlaylist("Everything", rules: PlaylistRules())
        #expect(all.count == 6 && all.rules == PlaylistRules())
        #expect(Set(try Self.titles(library, all.id).prefix(2)) == ["Episode a1", "Episode b1"])  // the newest of each
        let short = try library.createPlaylist("Short unplayed", rules: PlaylistRules(
            podcasts: [show.id], unplayed: true, maxDuration: 180, order: .longest))
        #expect(try Self.titles(library, short.id) == ["Episode a3", "Episode a2", "Episode a1"])
        try library.markCompleted(try #require(try library.episodes(podcastId: show.id).first { $0.episode.guid == "a2" }?.id), true)
        #expect(try Self.titles(library, short.id) == ["Episode a3", "Episode a1"])
        let titled = try library.createPlaylist("Best", rules: PlaylistRules(title: "^episode (best|b2)$", order: .oldest))
        #expect(try Self.titles(library, titled.id) == ["Episode best", "Episode b2"])
        #expect(try library.playlist(matching: "best").id == titled.id && library.playlist(matching: String(titled.id)).name == "Best")
        let none = try library.createPlaylist("Downloaded", rules: PlaylistRules(podcasts: [other.id], downloaded: true, minDuration: 1))
        #expect(none.count == 0)
        #expect(try library.playlists().map(\.name) == ["Best", "Downloaded", "Everything", "Short unplayed"])

        // Refused whole: nothing written.
        for (name, rules) in [("Bad pattern", PlaylistRules(title: "(best")), ("NaN", PlaylistRules(minDuration: .nan)),
                              ("Huge", PlaylistRules(maxAge: 1e23)), ("Nobody's", PlaylistRules(podcasts: [4242])),
                              ("EVERYTHING", PlaylistRules()), ("", PlaylistRules()), ("42", PlaylistRules()),
                              (String(repeating: "n", count: Library.playlistNameLimit + 1), PlaylistRules())] {
            #expect(throws: LibraryError.self, "\(name)") { try library.createPlaylist(name, rules: rules) }
        }
        #expect(try library.playlists().count == 4)
        #expect(throws: LibraryError.self) { try library.addToPlaylist(all.id, [1]) }
        try library.deletePlaylist(all.id)
        #expect(throws: LibraryError.self) { try library.playlist(all.id) }
    }

    @Test func aListKeptByHandAndWhatPlaysNext() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let show = try library.subscribe(feedURL: "https://example.org/a", feed: Self.feed(["a1", "a2", "a3", "a4"]), etag: nil, lastModified: nil)
        let ids = Dictionary(uniqueKeysWithValues: try library.episodes(podcastId: show.id).map { ($0.episode.guid, $0.id) })
        let list = try library.createPlaylist("Road trip", rules: nil)
        try library.addToPlaylist(list.id, [ids["a3"]!, ids["a1"]!])
        try library.addToPlaylist(list.id, [ids["a4"]!], at: 0)
        try library.addToPlaylist(list.id, [ids["a3"]!])  // moves to the end
        #expect(try Self.titles(library, list.id) == ["Episode a4", "Episode a1", "Episode a3"])
        #expect(try library.playlist(list.id).count == 3)

        // Active: what plays next is the list's, in its order, then nothing; the queue is left as it is.
        try library.enqueue([ids["a2"]!])
        try library.setActivePlaylist(list.id)
        #expect(try library.nextEpisode(after: ids["a2"]!)?.episode.guid == "a4")  // not in it: its first
        #expect(try library.nextEpisode(after: ids["a4"]!)?.episode.guid == "a1")
        #expect(try library.nextEpisode(after: ids["a3"]!) == nil)
        try library.removeFromPlaylist(list.id, ids["a1"]!)
        #expect(try library.nextEpisode(after: ids["a4"]!)?.episode.guid == "a3")
        #expect(throws: LibraryError.self) { try library.removeFromPlaylist(list.id, ids["a1"]!) }
        // The queue active again: its head.
        try library.setActivePlaylist(QueuePlaylist.id)
        #expect(try library.nextEpisode(after: ids["a4"]!)?.episode.guid == "a2")
        // Deleting the active playlist makes nothing active.
        try library.setActivePlaylist(list.id)
        try library.deletePlaylist(list.id)
        #expect(try library.activePlaylist() == nil)
        #expect(throws: LibraryError.self) { try library.setActivePlaylist(list.id) }
    }

    /// Adding at one place again and again keeps the order asked for (REVIEW-4, N17: ranks are
    /// midpoints, and after about fifty adds at index 1 two were equal and the ids decided).
    @Test func addingAtOnePlaceAHundredTimesKeepsTheOrder() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let guids = (0..<102).map { "e\($0)" }
        let show = try library.subscribe(feedURL: "https://example.org/a", feed: Self.feed(guids), etag: nil, lastModified: nil)
        let ids = Dictionary(uniqueKeysWithValues: try library.episodes(podcastId: show.id).map { ($0.episode.guid, $0.id) })
        let list = try library.createPlaylist("Stack", rules: nil)
        try library.addToPlaylist(list.id, [ids["e0"]!, ids["e1"]!])
        // Each new one goes in second place: the newest added is second, the first added last.
        for number in 2..<102 { try library.addToPlaylist(list.id, [ids["e\(number)"]!], at: 1) }
        let expected = ["Episode e0"] + (2..<102).reversed().map { "Episode e\($0)" } + ["Episode e1"]
        #expect(try library.playlistEpisodes(list.id, offset: 0, limit: 200).map(\.title) == expected)
    }

    @Test func fiftyThousandEpisodesAnswerInPages() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let guids = (0..<50_000).map { "e\($0)" }
        _ = try library.subscribe(feedURL: "https://example.org/big", feed: FeedFixtures.feed(guids), etag: nil, lastModified: nil)
        let playlist = try library.createPlaylist("All", rules: PlaylistRules(unplayed: true, order: .oldest))
        #expect(playlist.count == 50_000)
        var seen = Set<Int64>()
        var offset = 0
        var slowest: Duration = .zero
        while true {
            let start = ContinuousClock.now
            let page = try library.playlistEpisodes(playlist.id, offset: offset, limit: 1000)
            slowest = max(slowest, ContinuousClock.now - start)
            guard !page.isEmpty else { break }
            #expect(page.count <= 1000)
            seen.formUnion(page.map(\.id))
            offset += page.count
        }
        print("a 50,000-episode playlist in pages of 1,000: the slowest page took \(slowest)")
        #expect(seen.count == 50_000 && offset == 50_000)
        #expect(try library.playlistEpisodes(playlist.id, offset: 0, limit: 1).first?.guid == "e49999")
    }

    /// What plays next walks each order exactly as the playlist lists it, ties
    /// and unknown lengths and dates included (a keyset from the episode's
    /// place, REVIEW-4 N13: before, every row was numbered at each end).
    @Test func whatPlaysNextWalksEveryOrderAsItIsListed() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        var feed = Self.feed((0..<14).map { "e\($0)" })
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        for index in feed.episodes.indices {
            // Lengths with ties and gaps; dates with ties and two undated.
            feed.episodes[index].duration = index % 5 == 4 ? nil : Double(60 * (index % 3))
            feed.episodes[index].published = index % 6 == 5 ? nil : day.addingTimeInterval(Double(86_400 * (index / 2)))
        }
        let show = try library.subscribe(feedURL: "https://example.org/a", feed: feed, etag: nil, lastModified: nil)
        let ids = try library.episodes(podcastId: show.id).map(\.id)
        var playlists = try PlaylistRules.Order.allCases.map { order in
            try library.createPlaylist("By \(order)", rules: PlaylistRules(title: "episode", order: order)).id
        }
        let byHand = try library.createPlaylist("By hand", rules: nil).id
        try library.addToPlaylist(byHand, Array(ids.shuffled().prefix(9)))
        playlists.append(byHand)
        let outside = try library.subscribe(feedURL: "https://example.org/b", feed: FeedFixtures.feed(["x"]), etag: nil, lastModified: nil)
        let stranger = try #require(try library.episodes(podcastId: outside.id).first?.id)
        for playlist in playlists {
            let listed = try library.playlistEpisodes(playlist, offset: 0, limit: 100).map(\.id)
            #expect(listed.count == (playlist == byHand ? 9 : 14))
            try library.setActivePlaylist(playlist)
            var walked: [Int64] = []
            var at = stranger  // not in it: its first comes next
            while let next = try library.nextEpisode(after: at)?.id, walked.count <= listed.count {
                walked.append(next)
                at = next
            }
            #expect(walked == listed, "playlist \(playlist)")
        }
    }

    /// A title pattern is matched once, not at each read: titles a refresh
    /// writes are matched after it, a renamed episode leaves, a pattern
    /// kept by an older library (no index yet) is matched when it opens,
    /// and a deleted playlist's matches go.
    @Test func titlePatternsAreMatchedOnceAndKeptUpToDate() throws {
        let directory = try Fixtures.temporaryDirectory()
        var library = try Library(directory: directory)
        var feed = FeedFixtures.feed(["a", "b", "c"], titlePrefix: "Episode ")
        feed.episodes[1].title = "The best one"
        let show = try library.subscribe(feedURL: "https://example.org/a", feed: feed, etag: nil, lastModified: nil)
        let best = try library.createPlaylist("Best", rules: PlaylistRules(title: "best"))
        #expect(best.count == 1)
        feed.episodes[1].title = "Renamed"
        feed.episodes.append(feed.episodes[0])
        feed.episodes[3].guid = "d"
        feed.episodes[3].title = "Best of the year"
        _ = try library.applyRefresh(show.id, feed: feed, etag: nil, lastModified: nil)
        try library.matchTitles()
        #expect(try Self.titles(library, best.id) == ["Best of the year"])
        #expect(try library.playlist(best.id).count == 1)

        // A playlist an older Pods wrote, before titles were matched once: matched at the next open.
        let db = try DatabaseQueue(path: directory.appendingPathComponent(Library.fileName).path)
        try db.write { db in
            try db.execute(sql: "INSERT INTO playlist (name, rules, createdAt, modifiedAt) VALUES ('Old', ?, 0, 0)", arguments: [#"{"podcasts":[],"unplayed":false,"downloaded":false,"title":"episode","order":"newest"}"#])
            try db.execute(sql: "DELETE FROM titlePattern")
        }
        try db.close()
        library = try Library(directory: directory)
        try library.matchTitles()
        let old = try library.playlist(matching: "Old")
        #expect(old.count == 2)
        #expect(try library.playlist(best.id).count == 1)
        try library.deletePlaylist(best.id)
        try library.matchTitles()
        #expect(try library.reading { db in try String.fetchAll(db, sql: "SELECT DISTINCT pattern FROM titleMatch") } == ["episode"])
    }

    /// A hundred title playlists are listed from what was matched once:
    /// after a played mark the listing counts each again by an index (well
    /// under a tenth of the build before's cost, which matched every title
    /// against every pattern at each listing, timed here beside it, each
    /// the least of three rounds), and
    /// unchanged it counts nothing. (`pods-find-bench --playlists` measures
    /// 1,000 over 50,000 on a release build; docs/benchmarks.md.)
    @Test func aHundredTitlePlaylistsListWithoutMatchingAgain() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let words = (0..<100).map { "w\($0)x" }
        var feed = FeedFixtures.feed((0..<5000).map { "e\($0)" }, titlePrefix: "Episode ")
        for index in feed.episodes.indices {
            feed.episodes[index].title = "Episode \(index) " + (0..<4).map { words[(index * 7 + $0 * 31) % words.count] }.joined(separator: " ")
        }
        let show = try library.subscribe(feedURL: "https://example.org/a", feed: feed, etag: nil, lastModified: nil)
        for word in words { _ = try library.createPlaylist("Has \(word)", rules: PlaylistRules(title: word)) }
        let patterns = try words.map { try TitlePattern($0) }
        let titles = feed.episodes.map(\.title)
        func time(_ body: () throws -> Void) rethrows -> Duration {
            let start = ContinuousClock.now
            try body()
            return ContinuousClock.now - start
        }
        // Three rounds, each cost its least (a loaded machine stalls any one of them): a played mark, then the listing.
        var expected: [String: Int] = [:]
        var (before, changed) = (Duration.seconds(3600), Duration.seconds(3600))
        var listed: [EpisodePlaylist] = []
        let marked = try library.episodes(podcastId: show.id).prefix(3).map(\.id)
        for episode in marked {
            before = min(before, time { for pattern in patterns { expected["Has \(pattern.source)"] = titles.count(where: pattern.matches) } })
            try library.markCompleted(episode, true)
            changed = min(changed, try time { listed = try library.playlists() })
        }
        let unchanged = try time { listed = try library.playlists() }
        print("100 title playlists over 5,000 episodes listed: \(changed) after a played mark, \(unchanged) unchanged; matching every title: \(before)")
        #expect(Dictionary(uniqueKeysWithValues: listed.map { ($0.name, $0.count) }) == expected)
        #expect(changed < before / 10)
        #expect(unchanged < changed)
    }
}
