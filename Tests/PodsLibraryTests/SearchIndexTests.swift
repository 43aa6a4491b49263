import Foundation
import PodsChapters
@testable import PodsFeedParser
import PodsLibrary
import PodsTestSupport
import Testing

/// `pods find`'s index: titles, show notes, chapter titles and transcript
/// lines, kept in step by the library's own triggers with every write.
@Suite struct SearchIndexTests {
    static func library() throws -> (Library, [Int64], Int64) {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        var feed = FeedFixtures.feed(["a", "b"], titlePrefix: "Episode ")
        feed.episodes[0].title = "Crème brûlée and quantum physics"
        feed.episodes[0].description = "We talk about entanglement, then lunch."
        feed.episodes[0].chapters = [PodsFeedParser.Chapter(start: 95, title: "Schrödinger's cat", url: nil, image: nil), PodsFeedParser.Chapter(start: 200, title: "Dessert", url: nil, image: nil)]
        feed.episodes[1].description = "Nothing of note."
        let podcast = try library.subscribe(feedURL: "https://example.org/feed", feed: feed, etag: nil, lastModified: nil)
        return (library, try library.episodes(podcastId: podcast.id).map(\.id), podcast.id)
    }

    @Test func everyKindOfTextIsFoundWithItsMoment() throws {
        let (library, episodes, _) = try Self.library()
        let cues = #"[{"start":12.5,"end":15,"text":"The photon was entangled with the other."},{"start":3723,"text":"Goodbye"}]"#
        try library.saveTranscript(episodes[1], url: "https://example.org/b.vtt", format: "vtt", cuesJSON: cues)
        try library.saveChapterList(episodes[1], .media, StoredChapterList(url: "u", chapters: [EpisodeChapter(start: 61, title: "Photon news", source: .id3)]))

        let hits = try library.search("entangle")  // the last word as a prefix
        #expect(Set(hits.map(\.kind)) == ["notes", "transcript"], "\(hits)")
        let spoken = try #require(hits.first { $0.kind == "transcript" })
        #expect(spoken.episodeId == episodes[1] && spoken.at == 12.5 && spoken.snippet.contains("[entangled]"), "\(spoken)")
        // Accents and case do not matter; a chapter carries its start.
        let cat = try #require(try library.search("schrodinger").first)
        #expect(cat.kind == "chapter" && cat.at == 95 && cat.episodeTitle == "Crème brûlée and quantum physics")
        #expect(try library.search("CREME brulee").first?.kind == "title")
        #expect(try library.search("photon").map(\.kind).sorted() == ["chapter", "transcript"])
        #expect(try library.search("photon news").map(\.at) == [61])  // every word
        #expect(try library.search("nothing at all here").isEmpty)
    }

    /// Rewritten, refreshed away or deleted, the index follows.
    @Test func theIndexFollowsEveryWrite() throws {
        let (library, episodes, podcast) = try Self.library()
        try library.saveTranscript(episodes[1], url: "u", format: "vtt", cuesJSON: #"[{"start":1,"text":"first words"}]"#)
        #expect(try library.search("first").count == 1)
        try library.saveTranscript(episodes[1], url: "u", format: "vtt", cuesJSON: #"[{"start":1,"text":"second words"}]"#)
        #expect(try library.search("first").isEmpty && library.search("second").count == 1)
        // A transcript a reader failed on keeps its error where the cues go: nothing indexed, nothing broken.
        try library.saveTranscript(episodes[1], url: "u", format: "unreadable", cuesJSON: "podsd stopped while reading it")
        #expect(try library.search("second").isEmpty && library.search("stopped").isEmpty)
        // A refresh that changes the notes and the title.
        var feed = FeedFixtures.feed(["a", "b"], titlePrefix: "Episode ")
        feed.episodes[0].description = "Now about volcanoes."
        feed.episodes[1].title = "Renamed"
        _ = try library.applyRefresh(podcast, feed: feed, etag: nil, lastModified: nil)
        #expect(try library.search("entanglement").isEmpty && library.search("volcanoes").count == 1)
        #expect(try library.search("renamed").first?.kind == "title" && library.search("Episode b").isEmpty)
        try library.unsubscribe(podcast)
        #expect(try library.search("volcanoes").isEmpty && library.search("renamed").isEmpty)
    }

    /// A write marks its episode; the index takes its texts after, a batch
    /// at a time; a text replaced before it was indexed is never found.
    @Test func textsAreIndexedAfterTheirWritesInBatches() throws {
        let (library, episodes, podcast) = try Self.library()
        #expect(try library.unindexedSearchText() > 0)
        while try library.indexSearchText(batch: 1) > 0 {}
        #expect(try library.unindexedSearchText() == 0)
        try library.saveTranscript(episodes[0], url: "u", format: "vtt", cuesJSON: #"[{"start":1,"text":"unindexed words"}]"#)
        try library.saveTranscript(episodes[0], url: "u", format: "vtt", cuesJSON: #"[{"start":1,"text":"later words"}]"#)
        #expect(try library.unindexedSearchText() == 1)  // its episode, once
        #expect(try library.search("unindexed").isEmpty && library.search("later").count == 1)  // a search catches up first
        #expect(try library.unindexedSearchText() == 0)
        try library.unsubscribe(podcast)
        #expect(try library.search("words").isEmpty && library.search("episode").isEmpty)
        try library.rebuildSearchIndex()
        #expect(try library.unindexedSearchText() == 0 && library.search("words").isEmpty)
    }

    /// What a listener types is words, never FTS5's syntax; hostile times are none.
    @Test func anyTextIsASearchAndNoneFails() throws {
        let (library, episodes, _) = try Self.library()
        try library.saveTranscript(episodes[0], url: "u", format: "json",
                                   cuesJSON: #"[{"start":"12","text":"odd start"},{"start":{},"text":"odder"},{"start":1e308,"text":"far"},{"text":5}]"#)
        #expect(try library.search("odd").first?.at == nil)
        #expect(try library.search("far").first?.at == 1e308)  // kept as said; the player checks times
        for text in ["\"", "AND", "NEAR(", "a* OR b", "-x", "(", "col:text", "^", "''", "", "   ", String(repeating: "ü", count: 5000),
                     "\u{0}", "😀", "a\"b"] {
            _ = try library.search(text)
        }
        #expect(try library.search("").isEmpty)
        #expect(try library.search("AND cat").isEmpty)  // "AND" is a word here, and no text has it
        #expect(try library.search("x", limit: -5).count <= 1)
    }
}
