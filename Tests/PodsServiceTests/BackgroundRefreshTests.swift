import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// podsd refreshes by itself every `refresh-interval`, backs off a failing
/// feed (twice as long after each failure), and says when each feed is next.
@Suite(.timeLimit(.minutes(10))) struct BackgroundRefreshTests {
    /// A stop during a refresh round (a server holding a feed) ends at once:
    /// the round's transfers are cancelled, and nothing of it is written (the
    /// held feed is no failure).
    @Test func sigtermDuringARefreshRoundExitsWithinTwoSeconds() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/slow.xml", sampleFeed([("s1", "Slow one", 1, server.url("/a.mp3"))], title: "Slow Show"))
        let directory = try Fixtures.temporaryDirectory()
        let podsd = try await PodsdProcess.start(extraArguments: ["--refresh-interval", "2s"], directory: directory)
        #expect(await podsd.pods("subscribe", server.url("/slow.xml")).status == 0)
        server.hold("/slow.xml")
        defer { server.release("/slow.xml") }
        try await waitFor(timeout: .seconds(10)) { server.requests(for: "/slow.xml") >= 2 }  // the round is waiting on it
        let exit = try #require(await podsd.signal(SIGTERM, timeout: .seconds(10)))
        #expect(exit.status == 0 && exit.after < .seconds(2), "stopped after \(exit.after)")
        server.release("/slow.xml")
        let again = try await PodsdProcess.start(bus: podsd.bus, directory: directory)
        let podcast = try #require(try await LibraryClient(again.client).podcastsJSON().first)
        #expect(podcast["lastError"] is NSNull || podcast["lastError"] == nil, "\(podcast)")
    }

    /// A settings change during a refresh round is not lost: the round's
    /// end looks at the schedule as it is now, not as it was at the start.
    @Test func anIntervalChangedDuringARoundTakesEffectAfterIt() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/slow.xml", sampleFeed([("s1", "Slow one", 1, server.url("/a.mp3"))], title: "Slow Show"))
        let directory = try Fixtures.temporaryDirectory()
        try "refresh-interval = \"2s\"\n".write(to: directory.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        let podsd = try await PodsdProcess.start(directory: directory, refreshAsConfigured: true)
        #expect(await podsd.pods("subscribe", server.url("/slow.xml")).status == 0)
        server.hold("/slow.xml")
        defer { server.release("/slow.xml") }
        try await waitFor(timeout: .seconds(10)) { server.requests(for: "/slow.xml") >= 2 }  // a round waits on it
        #expect(await podsd.pods("config", "refresh-interval", "1h").status == 0)
        try await Task.sleep(for: .milliseconds(300))
        server.release("/slow.xml")
        let after = server.requests(for: "/slow.xml")
        try await Task.sleep(for: .seconds(5))  // with the round's 2 s schedule it would have come again
        #expect(server.requests(for: "/slow.xml") == after, "fetched \(server.requests(for: "/slow.xml") - after) more times")
    }

    @Test func refreshesOnTimeAndBacksOffAFailingFeed() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/good.xml", sampleFeed([("g1", "Good one", 1, server.url("/a.mp3"))], title: "Good Show"))
        server.setFile("/flaky.xml", sampleFeed([("f1", "Flaky one", 1, server.url("/a.mp3"))], title: "Flaky Show"))
        let podsd = try await PodsdProcess.start(extraArguments: ["--refresh-interval", "2s"])
        #expect(await podsd.pods("subscribe", server.url("/good.xml")).status == 0)
        #expect(await podsd.pods("subscribe", server.url("/flaky.xml")).status == 0)
        server.setFault("/flaky.xml", .status(500))
        let start = ContinuousClock.now
        // A new episode appears in the good feed: podsd finds it by itself.
        server.setFile("/good.xml", sampleFeed([("g1", "Good one", 1, server.url("/a.mp3")), ("g2", "Good two", 2, server.url("/a.mp3"))],
                                               title: "Good Show"))
        try await waitFor(timeout: .seconds(8)) {
            ((try? await LibraryClient(podsd.client).episodesJSON()) ?? []).contains { $0["title"] as? String == "Good two" }
        }
        try await Task.sleep(until: start + .seconds(11))
        // Every ~2 s for the good feed (5 or so in 11 s, besides the subscribe); the failing one at
        // about 2, 6 and 14 s: its wait doubles after each failure. With ±10% jitter on each wait the
        // third can come as early as 12.6 s, so the count is taken at 11 s.
        let good = server.requests(for: "/good.xml") - 1, flaky = server.requests(for: "/flaky.xml") - 1
        #expect(good >= 4 && good <= 7, "good feed fetched \(good) times in 11 s")
        #expect(flaky >= 1 && flaky <= 2, "failing feed fetched \(flaky) times in 11 s")

        let podcasts = try await LibraryClient(podsd.client).podcastsJSON()
        let flakyItem = try #require(podcasts.first { $0["title"] as? String == "Flaky Show" })
        #expect((flakyItem["lastError"] as? String)?.contains("500") == true)
        let goodItem = try #require(podcasts.first { $0["title"] as? String == "Good Show" })
        let next = try #require(goodItem["nextRefreshAt"] as? String)
        let formatter = ISO8601DateFormatter()
        let nextDate = try #require(formatter.date(from: next))
        #expect(nextDate.timeIntervalSinceNow < 4, "next refresh \(next)")

        // The server recovers: after the next (backed-off) attempt works, every ~2 s again.
        server.setFault("/flaky.xml", nil)
        try await waitFor(timeout: .seconds(15)) {
            ((try? await LibraryClient(podsd.client).podcastsJSON()) ?? []).first { $0["title"] as? String == "Flaky Show" }?["lastError"] is NSNull
        }
        let recovered = server.requests(for: "/flaky.xml")
        try await Task.sleep(for: .seconds(5))
        #expect(server.requests(for: "/flaky.xml") - recovered >= 2, "back to the plain interval")
        #expect(podsd.isRunning)
    }

    @Test func zeroMeansNever() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/good.xml", sampleFeed([("g1", "Good one", 1, server.url("/a.mp3"))], title: "Good Show"))
        let podsd = try await PodsdProcess.start()  // the tests' podsd: --refresh-interval 0
        #expect(await podsd.pods("subscribe", server.url("/good.xml")).status == 0)
        try await Task.sleep(for: .seconds(2))
        #expect(server.requests(for: "/good.xml") == 1)
        let podcasts = try await LibraryClient(podsd.client).podcastsJSON()
        #expect(podcasts.first?["nextRefreshAt"] is NSNull)
    }
}
