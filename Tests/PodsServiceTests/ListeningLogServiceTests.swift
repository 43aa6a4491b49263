import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// The listening log on the real podsd: a scripted session (play, pause,
/// a seek, 2×, stop) and `pods stats` adding up the seconds it played to
/// within one, with what 2× saved; the export lists each stretch. (In the
/// waiting lane: it holds real time.)
@Suite(.serialized, .timeLimit(.minutes(3))) struct ListeningLogServiceTests {
    @Test func statsMatchTheSecondsAScriptedSessionPlayed() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/feed.xml", Data("""
            <?xml version="1.0"?><rss version="2.0"><channel><title>Heard "Show"</title>
            <item><title>Heard, episode</title><guid>h</guid><pubDate>02 Nov 2026 08:00:00 GMT</pubDate>
              <enclosure url="\(server.url("/a.mp3"))" type="audio/mpeg" length="720000"/></item>
            </channel></rss>
            """.utf8))
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bus = try await PrivateBus.start()
        let podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        let episode = try #require(try await LibraryClient(podsd.client).episodesJSON().first?["id"] as? Int)
        let empty = await podsd.pods("stats")
        #expect(empty.status == 0 && empty.stdout == "Nothing heard yet.\n", "\(empty)")

        let player = podsd.client
        var played: Duration = .zero
        /// Plays for `length` from the moment `start` is answered to the moment `stop` is.
        func stretch(_ length: Duration, start: () async throws -> Void, during: (() async throws -> Void)? = nil,
                     stop: () async throws -> Void) async throws {
            try await start()
            let began = ContinuousClock.now
            try await waitFor(timeout: .seconds(10)) { (try? await player.status().state) == .playing }
            try await Task.sleep(until: began + length)
            try await during?()
            try await stop()
            played += ContinuousClock.now - began
        }
        // Loaded by `pods play` and paused at once (a process's start and exit are no measure of
        // when playing began: this first stretch is only bounded); then, each timed by the MPRIS
        // calls that begin and end it: 3 s at 1×, paused; 4 s at 2× from 0:30, paused; 1 s at 1×,
        // stopped; 2 s at 2× from the start, a seek 10 s ahead, 2 s more, paused.
        let loading = ContinuousClock.now
        #expect(await podsd.pods("play", String(episode)).status == 0)
        try await waitFor(timeout: .seconds(10)) { (try? await player.status().state) == .playing }
        try await player.pause()
        let loadStretch = ContinuousClock.now - loading
        try await stretch(.seconds(3), start: { try await player.play() }) { try await player.pause() }
        try await player.setPosition(.seconds(30))
        try await player.setRate(2)
        try await stretch(.seconds(4), start: { try await player.play() }) { try await player.pause() }
        try await player.setRate(1)
        try await stretch(.seconds(1), start: { try await player.play() }) { try await player.stop() }
        try await player.setRate(2)
        try await stretch(.seconds(2), start: { try await player.play() }, during: {
            try await player.seek(by: .seconds(10))
            try await Task.sleep(for: .seconds(2))
        }) { try await player.pause() }

        try await waitFor(timeout: .seconds(10)) {
            ((try? Self.object(await podsd.pods("stats", "--json")))?["sessions"] as? Int) == 6
        }
        let stats = try Self.object(await podsd.pods("stats", "--json"))
        let heard = try #require(stats["seconds"] as? Double)
        let sessions = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("stats", "--export", "json").stdout.utf8))
                                        as? [[String: Any]])
        let first = try #require(sessions.first?["seconds"] as? Double)
        #expect(first > 0 && first < loadStretch / .seconds(1), "the first stretch: \(first) s of \(loadStretch)")
        let expected = played / .seconds(1)
        print("pods stats: heard \(heard - first) s after the first stretch; the test played \(expected) s")
        #expect(abs(heard - first - expected) < 1, "heard \(heard - first) s, played \(expected) s")
        // 2× for about 4 + 4 s of wall time saved about as much.
        let bySpeed = try #require(stats["savedBySpeed"] as? Double)
        #expect(abs(bySpeed - 8) < 1, "saved by speed \(bySpeed)")
        let podcasts = try #require(stats["podcasts"] as? [[String: Any]])
        #expect(podcasts.count == 1 && podcasts.first?["name"] as? String == "Heard \"Show\"")
        #expect(abs((podcasts.first?["seconds"] as? Double ?? 0) - heard) < 0.01)
        #expect((stats["weeks"] as? [[String: Any]])?.count == 1)

        // Each stretch exported: the seek split the last one where it jumped.
        let csv = await podsd.pods("stats", "--export", "csv")
        let rows = csv.stdout.split(separator: "\n")
        #expect(rows.count == 7 && rows.first == "startedAt,podcastId,podcast,episodeId,episode,from,to,rate,seconds", "\(csv)")
        #expect(rows.dropFirst().allSatisfy { $0.contains(",\"Heard \"\"Show\"\"\",\(episode),\"Heard, episode\",") }, "\(csv)")
        print("play sessions: \(sessions.map { ($0["seconds"] as? Double ?? 0, $0["from"] as? Double ?? 0, $0["to"] as? Double ?? 0) })")
        let froms = sessions.compactMap { $0["from"] as? Double }
        #expect(froms.count == 6 && abs(froms[2] - 30) < 0.5, "\(sessions)")
        #expect(sessions.map { $0["rate"] as? Double } == [1, 1, 2, 1, 2, 2])
        // The last two: the jump of 10 s is between them, not inside either.
        let jumpedFrom = try #require(sessions[4]["to"] as? Double), jumpedTo = try #require(sessions[5]["from"] as? Double)
        #expect(abs(jumpedTo - jumpedFrom - 10) < 0.6, "\(jumpedFrom) → \(jumpedTo)")

        let later = await podsd.pods("stats", "--since", "1h")
        #expect(later.stdout.hasPrefix("Since 1h:\n  heard  0:00:"), "\(later)")
        let future = await podsd.pods("stats", "--since", "2999-01-01", "--json")
        #expect(((try? Self.object(future))?["sessions"] as? Int) == 0)
        let wrong = await podsd.pods("stats", "--since", "yesterday")
        #expect(wrong.status != 0 && wrong.stderr.contains("--since takes a date"), "\(wrong)")
        #expect(podsd.isRunning)
    }

    private static func object(_ result: CommandResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    }
}
