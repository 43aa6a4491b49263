import Foundation
import Logging
import PodsFeedParser
@testable import PodsLibrary
@testable import PodsSession
import PodsTestSupport
import Testing

/// What a podsd that ended inside a read of a media file's tags leaves for
/// the next start (REVIEW-4, N10: the attempt was stored before the read, so
/// a kill, a logout or a power loss during it cost the file its chapters,
/// and skip-chapters with them, for good). A crash in the reader spends the
/// file's one attempt; a kill spends nothing.
@Suite struct ChapterLoaderTests {
    static let url = "http://127.0.0.1:1/tagged.mp3"

    static func library() throws -> (Library, Int64) {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        var feed = Feed()
        feed.title = "Tagged"
        var episode = Episode()
        episode.guid = "t"
        episode.title = "Tagged"
        episode.enclosures = [Enclosure(url: url, type: "audio/mpeg", length: nil)]
        feed.episodes = [episode]
        let podcast = try library.subscribe(feedURL: "https://example.org/feed", feed: feed, etag: nil, lastModified: nil)
        return (library, try #require(try library.episodes(podcastId: podcast.id).first?.id))
    }

    @Test func aKillDuringAReadCostsTheFileNothing() throws {
        let (library, episode) = try Self.library()
        // The marker a read writes as it begins, left as it was when podsd was killed (no crash line).
        LoadMarker.chapterReads(in: library.directory).begin(episode, url: Self.url)
        _ = ChapterLoader(library: library, artwork: nil, logger: Logger(label: "test"))
        #expect(try library.chapterList(episode, .media, url: Self.url) == nil, "the next play reads the tags again")
        #expect(!FileManager.default.fileExists(atPath: library.directory.appendingPathComponent("reading-chapters").path))
    }

    @Test func aCrashDuringAReadSpendsTheFilesAttempt() throws {
        let (library, episode) = try Self.library()
        LoadMarker.chapterReads(in: library.directory).begin(episode, url: Self.url)
        // What the crash handler appends through the marker's descriptor.
        let marker = try FileHandle(forWritingTo: library.directory.appendingPathComponent("reading-chapters"))
        try marker.seekToEnd()
        try marker.write(contentsOf: Data((LoadMarker.crashLine + "\n").utf8))
        try marker.close()
        _ = ChapterLoader(library: library, artwork: nil, logger: Logger(label: "test"))
        let stored = try #require(try library.chapterList(episode, .media, url: Self.url))
        #expect(stored.chapters.isEmpty && stored.error == ChapterLoader.diedReading)
    }
}
