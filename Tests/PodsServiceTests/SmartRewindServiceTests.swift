import Foundation
import Glibc
import PodsClient
import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsTestSupport
import Testing

/// Smart rewind on the real podsd: playing again after a pause goes back
/// by the pause's step (a pause's time is set back in the library, as a
/// restart or a long wait would leave it), never back into a skipped
/// chapter, not after a brief pause, not when the listener moved the
/// position, and not when the podcast turned it off. (In the playing lane: it holds real time.)
@Suite(.serialized, .timeLimit(.minutes(3))) struct SmartRewindServiceTests {
    /// Where it went back to, within what a loaded machine's calls take (they count as time played).
    static func near(_ measured: Double, _ target: Double) -> Bool { measured > target - 1 && measured < target + 0.2 }
    /// A step back measured from where it paused, within the same allowance (the calls' time counts as played, so less back).
    static func nearStep(_ measured: Double, _ step: Double) -> Bool { measured > step - 0.2 && measured < step + 1 }

    @Test func playingAgainAfterAPauseGoesBackByItsStep() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mp3 = try await ChapterFixtures.make(.mp3, [
            ChapterFixtures.Mark(0, 25, "Welcome"), ChapterFixtures.Mark(25, 35, "Sponsor"), ChapterFixtures.Mark(35, 60, "The middle"),
        ], seconds: 60, name: "rewind.mp3", in: directory)
        let server = try LoopbackHTTPServer(files: ["/rewind.mp3": mp3])
        defer { server.stop() }
        server.setFile("/feed.xml", Data("""
            <?xml version="1.0"?><rss version="2.0"><channel><title>Rewind Show</title>
            <item><title>Long talk</title><guid>talk</guid><pubDate>02 Nov 2026 08:00:00 GMT</pubDate>
              <enclosure url="\(server.url("/rewind.mp3"))" type="audio/mpeg"/></item>
            </channel></rss>
            """.utf8))
        let podsd = try await PodsdProcess.start(directory: directory)
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        let episode = try #require(try await LibraryClient(podsd.client).episodesJSON().first?["id"] as? Int)
        let library = try Library(directory: directory.appendingPathComponent("data"))
        let player = podsd.client
        func position() async throws -> Double { try await player.status().position }

        /// Playing, paused just past `at` s; the pause then made `ago` seconds old; played again a
        /// moment: where it went back to (the position less the time it played since), and where it paused.
        func resume(pausedAt at: Double, secondsAgo ago: Double,
                    playing play: () async throws -> Void = { try await podsd.client.play() }) async throws -> (landed: Double, paused: Double) {
            try await player.play()  // (a pause of a moment ago: nothing back)
            try await player.setPosition(.milliseconds(Int64(at * 1000)))
            // Until it plays on from there: the seek's target is what podsd says until the seek has settled.
            try await waitFor(timeout: .seconds(10)) { (try? await position()).map { $0 > at + 0.02 && $0 < at + 1 } ?? false }
            try await player.pause()
            let paused = try await position()
            do {
                try await waitFor(timeout: .seconds(10)) { (try? library.lastPause()).map { abs($0.position - paused) < 0.3 } ?? false }
            } catch {
                Issue.record("no pause kept at \(paused): \(String(describing: try? library.lastPause())), now at \(try await position())")
                throw error
            }
            try library.notePause(PausePoint(episodeId: Int64(episode), position: paused, at: Date(timeIntervalSinceNow: -ago)))
            let played = ContinuousClock.now
            try await play()
            try await Task.sleep(for: .milliseconds(400))
            try await player.pause()
            return (try await position() - (ContinuousClock.now - played) / .seconds(1), paused)
        }
        /// How far playing again went back from where it paused.
        func stepBack(pausedAt at: Double, secondsAgo ago: Double) async throws -> Double {
            let (landed, paused) = try await resume(pausedAt: at, secondsAgo: ago)
            return paused - landed
        }

        #expect(await podsd.pods("play", String(episode)).status == 0)
        try await waitFor(timeout: .seconds(10)) { (try? await player.property("CanSeek")) == .bool(true) }
        // Two hours: 10 s back; 61 s: 3 s back; 20 s: none.
        let afterHours = try await stepBack(pausedAt: 50, secondsAgo: 2 * 3600)
        #expect(Self.nearStep(afterHours, 10), "after two hours: back \(afterHours) s")
        // Back before a word is heard: the rewind's Seeked comes before PlaybackStatus says Playing
        // (REVIEW-4 N23: it was a seek once playing had begun, heard as a jump).
        var order: [String] = []
        _ = try await resume(pausedAt: 50, secondsAgo: 2 * 3600) {
            let signals = try await podsd.connection.signals(matching: DBusSignalMatch(sender: MPRIS.busName, path: MPRIS.objectPath))
            try await player.play()
            for await signal in signals {
                if signal.member == "Seeked", !order.contains("Seeked") { order.append("Seeked") }
                if signal.member == "PropertiesChanged", case .dictionary(_, _, let entries)? = signal.arguments.dropFirst().first,
                   entries.contains(where: { $0.key == .string("PlaybackStatus") && $0.value == .variant(.string("Playing")) }) {
                    order.append("Playing")
                    break
                }
            }
        }
        #expect(order == ["Seeked", "Playing"], "\(order)")
        let afterAMinute = try await stepBack(pausedAt: 50, secondsAgo: 61)
        #expect(Self.nearStep(afterAMinute, 3), "after a minute: back \(afterAMinute) s")
        let afterMoments = try await stepBack(pausedAt: 50, secondsAgo: 20)
        #expect(Self.nearStep(afterMoments, 0), "after 20 s: back \(afterMoments) s")

        // Never back into a skipped chapter: from 40 s, 10 s back would be 30 s, in the sponsor; it stops at 35 s.
        #expect(await podsd.pods("config", "--podcast", "Rewind Show", "skip-chapters", "sponsor").status == 0)
        let pastTheSponsor = try await resume(pausedAt: 40, secondsAgo: 2 * 3600).landed
        #expect(Self.near(pastTheSponsor, 35), "stopped at the sponsor's end: \(pastTheSponsor)")

        // Moved while paused: the listener's place stands.
        try await player.play()
        try await player.setPosition(.seconds(20))
        try await player.pause()
        try await waitFor(timeout: .seconds(10)) { (try? library.lastPause()).map { abs($0.position - 20) < 0.5 } ?? false }
        try library.notePause(PausePoint(episodeId: Int64(episode), position: 20, at: Date(timeIntervalSinceNow: -7200)))
        try await player.setPosition(.seconds(12))
        let played = ContinuousClock.now
        try await player.play()
        try await Task.sleep(for: .milliseconds(400))
        try await player.pause()
        let moved = try await position() - (ContinuousClock.now - played) / .seconds(1)
        #expect(Self.near(moved, 12), "moved while paused: \(moved)")

        // Off for the podcast: none.
        #expect(await podsd.pods("config", "--podcast", "Rewind Show", "smart-rewind", "false").status == 0)
        let off = try await stepBack(pausedAt: 50, secondsAgo: 2 * 3600)
        #expect(Self.nearStep(off, 0), "off: back \(off) s")
        #expect(podsd.isRunning)
        _ = await podsd.signal(SIGTERM)
        print(podsd.errorOutput().split(separator: "\n").filter { $0.contains("DIAG") }.joined(separator: "\n"))
    }
}
