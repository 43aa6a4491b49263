import Foundation
import PodsCache
import PodsFeedParser
@testable import PodsLibrary
@testable import PodsSession
import PodsTestSupport
import Testing

/// The helper that decodes artwork is a process of its own: whatever
/// happens to it, the session gets one error and goes on.
@Suite(.timeLimit(.minutes(10))) struct ArtworkPicturesTests {
    /// An episode of a local podcast (its feed a file) whose artwork is a local
    /// JPEG (the cache takes its `file:` as it is).
    static func episodeWithArtwork() async throws -> (Library, ArtworkCache, Int64) {
        let directory = try Fixtures.temporaryDirectory()
        let jpeg = directory.appendingPathComponent("art.jpg")
        let made = await Subprocess.run("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=blue:s=64x64",
                                                   "-frames:v", "1", jpeg.path])
        #expect(made.status == 0)
        let library = try Library(directory: directory.appendingPathComponent("data"))
        var feed = Feed()
        feed.title = "Pictures"
        var episode = Episode()
        episode.guid = "p"
        episode.title = "Pictured"
        episode.artworkURL = jpeg.absoluteString
        episode.enclosures = [Enclosure(url: "http://127.0.0.1:1/a.mp3", type: "audio/mpeg", length: nil)]
        feed.episodes = [episode]
        let podcast = try library.subscribe(feedURL: directory.appendingPathComponent("feed.xml").absoluteString, feed: feed,
                                            etag: nil, lastModified: nil)
        let id = try #require(try library.episodes(podcastId: podcast.id).first?.id)
        return (library, ArtworkCache(directory: directory.appendingPathComponent("cache"), library: library), id)
    }

    @Test func aHelperThatCrashesOrHangsIsOneErrorAndNothingIsKept() async throws {
        let (library, cache, episode) = try await Self.episodeWithArtwork()
        let crashing = ArtworkPictures(library: library, cache: cache, helper: ["/bin/sh", "-c", "kill -SEGV $$", "sh"])
        await #expect(throws: SessionError.self) { _ = try await crashing.picture(episode: episode, pixels: 64) }
        let hanging = ArtworkPictures(library: library, cache: cache, helper: ["/bin/sh", "-c", "exec sleep 60", "sh"],
                                      timeLimit: .milliseconds(300))
        let started = ContinuousClock.now
        await #expect(throws: SessionError.self) { _ = try await hanging.picture(episode: episode, pixels: 64) }
        #expect(ContinuousClock.now - started < .seconds(10))  // the helper would sleep 60 s
        // A helper that writes a half file and fails leaves nothing that a later call would take for a picture.
        let halfway = ArtworkPictures(library: library, cache: cache, helper: ["/bin/sh", "-c", "printf x > \"$2\"; exit 1", "sh"])
        await #expect(throws: SessionError.self) { _ = try await halfway.picture(episode: episode, pixels: 64) }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: cache.directory.path).filter { $0.hasPrefix("rendered-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// The same picture named by a web podcast: its `file:` artwork is never read (URLPolicy), whatever
    /// a library written before the policy holds.
    @Test func aWebPodcastsFileArtworkIsNeverRead() async throws {
        let (library, cache, episode) = try await Self.episodeWithArtwork()
        try await library.database.write { db in try db.execute(sql: "UPDATE podcast SET feedURL = 'https://example.com/feed.xml'") }
        let pictures = ArtworkPictures(library: library, cache: cache, helper: ["/bin/sh", "-c", "exit 0", "sh"])
        await #expect(throws: SessionError.self) { _ = try await pictures.picture(episode: episode, pixels: 64) }
        let stored = try library.episode(episode)
        #expect(stored.urlPolicy.isLocal == false)
        #expect(await cache.cachedURI(for: try #require(stored.episode.artworkURL), policy: stored.urlPolicy) == nil)
    }

    /// The artwork cache rewrites a picture when its server has a new one; the
    /// rendering made from the old one is replaced, not returned for good
    /// (`FileManager.moveItem` refused the existing file). podsd's own helper renders.
    @Test func aPictureIsRenderedAgainWhenItsArtworkChanges() async throws {
        let (library, cache, episode) = try await Self.episodeWithArtwork()
        let pictures = ArtworkPictures(library: library, cache: cache, helper: [Fixtures.executable("podsd"), "--render-artwork"])
        let first = try Data(contentsOf: try await pictures.picture(episode: episode, pixels: 64))
        let artworkURL = try library.episode(episode).episode.artworkURL
        let art = try #require(artworkURL.flatMap { URL(string: $0) })
        let made = await Subprocess.run("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=64x64",
                                                   "-frames:v", "1", "-f", "image2", art.path])
        #expect(made.status == 0)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: art.path)
        let second = try Data(contentsOf: try await pictures.picture(episode: episode, pixels: 64))
        #expect(!first.isEmpty && !second.isEmpty && first != second, "the old rendering came back")
        // A "picture" that is a playlist (or anything but PNG, JPEG or WebP) is refused by its first bytes.
        try Data("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nhttp://127.0.0.1:1/x.m3u8\n".utf8).write(to: art)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(10)], ofItemAtPath: art.path)
        await #expect(throws: SessionError.self) { _ = try await pictures.picture(episode: episode, pixels: 64) }
    }
}
