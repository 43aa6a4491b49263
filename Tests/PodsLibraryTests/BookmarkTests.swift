import Foundation
import PodsFeedParser
import PodsLibrary
import PodsTestSupport
import Testing

/// Bookmarks in the library: what is kept, what is refused, and that a
/// bookmarked episode outlives its feed dropping it.
@Suite struct BookmarkTests {
    private static func feed(_ guids: [String]) -> Feed { FeedFixtures.feed(guids, titlePrefix: "Episode ") }

    @Test func keptListedPagedAndDeleted() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let podcast = try library.subscribe(feedURL: "https://example.org/feed", feed: Self.feed(["a", "b"]), etag: nil, lastModified: nil)
        let episodes = try library.episodes(podcastId: podcast.id).map(\.id)
        let first = try library.addBookmark(episode: episodes[0], position: 754.2, note: "great point", cue: "A line\nof it")
        #expect(first.episodeTitle == "Episode a" && first.podcastTitle == "Show" && first.position == 754.2)
        #expect(first.note == "great point" && first.cue == "A line of it")
        for index in 1...4 { try library.addBookmark(episode: episodes[index % 2], position: Double(index), note: "\(index)") }
        #expect(try library.bookmarks(limit: 10).map(\.note) == ["great point", "1", "2", "3", "4"])
        #expect(try library.bookmarks(episode: episodes[0], limit: 10).map(\.note) == ["great point", "2", "4"])
        #expect(try library.bookmarks(offset: 3, limit: 10).map(\.note) == ["3", "4"])
        #expect(try library.bookmark(first.id) == first)
        try library.deleteBookmark(first.id)
        #expect(throws: LibraryError.self) { try library.bookmark(first.id) }
        #expect(throws: LibraryError.self) { try library.deleteBookmark(first.id) }
        #expect(throws: LibraryError.self) { try library.bookmarks(episode: 9999, limit: 10) }
    }

    /// Outside values are refused whole: nothing is written.
    @Test func whatIsOutOfRangeIsRefused() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let podcast = try library.subscribe(feedURL: "https://example.org/feed", feed: Self.feed(["a"]), etag: nil, lastModified: nil)
        let episode = try #require(try library.episodes(podcastId: podcast.id).first?.id)
        for position in [-1, .nan, .infinity, 1e23] {
            #expect(throws: LibraryError.self) { try library.addBookmark(episode: episode, position: position, note: "") }
        }
        let long = String(repeating: "é", count: Library.bookmarkNoteLimit + 1)
        #expect(throws: LibraryError.self) { try library.addBookmark(episode: episode, position: 1, note: long) }
        #expect(throws: LibraryError.self) { try library.addBookmark(episode: 4242, position: 1, note: "") }
        #expect(try library.bookmarks(limit: 10).isEmpty)
        // Exactly the limit is kept; control characters (a terminal's escapes) go, a long cue is cut.
        let kept = try library.addBookmark(episode: episode, position: 0, note: String(long.dropFirst()) + "\u{1B}\u{9B}",
                                           cue: String(repeating: "c", count: 10_000))
        #expect(kept.note.count == Library.bookmarkNoteLimit && kept.cue?.count == Library.bookmarkCueLimit)
        // Limits count bytes too: one "character" of a letter and a million combining marks is refused
        // (ADVERSARIAL-5, 6), and a cue of one is cut before it is read whole; emoji sequences fit.
        let heavy = "e" + String(repeating: "\u{301}", count: 1_000_000)
        #expect(throws: LibraryError.self) { try library.addBookmark(episode: episode, position: 1, note: heavy) }
        let families = try library.addBookmark(episode: episode, position: 1, note: String(repeating: "👨‍👩‍👧‍👦", count: 1_000), cue: heavy)
        #expect(families.note.count == 1_000 && (families.cue?.utf8.count ?? 0) <= Library.bookmarkCueLimit * 32)
        // Bidi overrides, isolates and zero-width spaces go; line and paragraph separators and NEL become spaces.
        let shown = try library.addBookmark(episode: episode, position: 2, note: "a\u{202E}b\u{2066}c\u{2069}d\u{200B}e\u{2028}f\u{2029}g\u{85}h\u{FEFF}")
        #expect(shown.note == "abcde f g h")
    }

    /// "queue" names the queue wherever a playlist is named: no playlist may take it (ADVERSARIAL-5, 7).
    @Test func noPlaylistIsCalledQueue() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        for name in ["queue", "Queue", " QUEUE ", "e" + String(repeating: "\u{301}", count: 100_000)] {
            #expect(throws: LibraryError.self, "\(name.prefix(8))") { try library.createPlaylist(name, rules: nil) }
        }
        #expect(try library.createPlaylist("queue 2", rules: nil).name == "queue 2")
    }

    /// A refresh that drops a bookmarked episode keeps it (not in the feed); unsubscribing takes both.
    @Test func aBookmarkedEpisodeOutlivesItsFeedDroppingIt() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let podcast = try library.subscribe(feedURL: "https://example.org/feed", feed: Self.feed(["a", "b", "c"]), etag: nil, lastModified: nil)
        let episodes = try library.episodes(podcastId: podcast.id)
        let marked = try #require(episodes.first { $0.episode.guid == "b" }?.id)
        try library.addBookmark(episode: marked, position: 30, note: "keep")
        let summary = try library.applyRefresh(podcast.id, feed: Self.feed(["a"]), etag: nil, lastModified: nil)
        #expect(summary.removed == 1)  // "c" went; "b" stays for its bookmark
        let left = try library.episodes(podcastId: podcast.id)
        #expect(left.map(\.episode.guid).sorted() == ["a", "b"] && left.first { $0.id == marked }?.inFeed == false)
        #expect(try library.bookmarks(limit: 10).count == 1)
        try library.unsubscribe(podcast.id)
        #expect(try library.bookmarks(limit: 10).isEmpty)
    }
}
