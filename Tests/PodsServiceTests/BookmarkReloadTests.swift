import Foundation
import Glibc
import PodsClient
import PodsTestSupport
import Testing

/// A bookmark's play through a reload of its episode. (In the timers
/// lane, Tests/realtime.sh: beside the parallel suites the cache's requests
/// for the changed file did not come within a minute, twice.)
@Suite(.timeLimit(.minutes(5))) struct BookmarkReloadTests {
    /// A bookmark's detour stays one when its file changes on the server as
    /// it plays: the cache starts over and the episode is loaded again where
    /// it was, under a new load number, and the resume position still stays
    /// (REVIEW-4, N16: after the reload progress was saved from the bookmark's place).
    @Test func aDetourStaysOneThroughAReload() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/feed.xml", sampleFeed([("d", "Detour", 1, server.url("/a.mp3"))]))
        // Slowly (half the audio's rate on each connection): its cache is far from whole when it changes.
        server.setRate("/a.mp3", bytesPerSecond: 2_000)
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        let episode = try #require(try await LibraryClient(podsd.client).episodesJSON().first?["id"] as? Int)
        #expect(await podsd.pods("play", String(episode)).status == 0)
        try await waitFor(timeout: .seconds(30)) { (try? await podsd.client.status().state) == .playing }
        try await podsd.client.pause()
        try await podsd.client.setPosition(.seconds(70))
        try await waitFor(timeout: .seconds(30)) { await BookmarkServiceTests.savedPosition(podsd, episode).map { abs($0 - 70) < 0.3 } ?? false }
        let taken = await podsd.pods("bookmark", "--json", "later")
        let bookmark = try #require((try? JSONSerialization.jsonObject(with: Data(taken.stdout.utf8)) as? [String: Any])?["id"] as? Int,
                                    "\(taken)")
        try await podsd.client.setPosition(.seconds(10))
        try await waitFor(timeout: .seconds(30)) { await BookmarkServiceTests.savedPosition(podsd, episode).map { abs($0 - 10) < 0.3 } ?? false }
        let resumeBefore = try #require(await BookmarkServiceTests.savedPosition(podsd, episode))

        // The file changes on the server (its ETag with it): the detour's first request for bytes not yet here voids the cache.
        server.setFile("/a.mp3", try Data(contentsOf: Fixtures.sampleMP3) + Data(count: 1), type: "audio/mpeg")
        #expect(await podsd.pods("play", "--bookmark", String(bookmark)).status == 0)
        let requests = server.requests(for: "/a.mp3")
        // The void one and the new file's; the verdict is the log's and the resume point's, below.
        try? await waitFor(timeout: .seconds(30)) { server.requests(for: "/a.mp3") > requests + 1 }
        server.setRate("/a.mp3", bytesPerSecond: nil)
        try await waitFor(timeout: .seconds(60)) { (try? await podsd.client.status().state) == .playing }
        try await Task.sleep(for: .milliseconds(2500))  // progress comes every second while playing
        let position = Double(try await podsd.client.property("Position").int64Value ?? 0) / 1_000_000
        #expect(position > 60, "the reload kept the detour's place: at \(position) s")
        #expect(await podsd.pods("stop").status == 0)
        try await Task.sleep(for: .milliseconds(300))
        let resumeAfter = try #require(await BookmarkServiceTests.savedPosition(podsd, episode))
        #expect(abs(resumeAfter - resumeBefore) < 0.01, "the resume position moved from \(resumeBefore) to \(resumeAfter)")
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        #expect(podsd.errorOutput().contains("changed on the server; its cache starts over"), "no reload: \(podsd.errorOutput().suffix(2_000))")
    }
}
