import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// `pods sleep`: on time, with the fade heard in what the pipeline played.
@Suite(.timeLimit(.minutes(10))) struct SleepTimerTests {
    /// podsd playing into a WAV file in real time (8 kHz mono S16LE), so the
    /// test can measure the fade in the audio itself.
    static func start(recordingTo wav: URL) async throws -> PodsdProcess {
        try await PodsdProcess.start(extraArguments: [
            "--audio-sink", "audioconvert ! audioresample ! audio/x-raw,format=S16LE,rate=8000,channels=1 ! wavenc ! "
                + "filesink sync=true buffer-mode=unbuffered location=\(wav.path)",
        ])
    }

    /// The RMS level of each second of a WAV written so far (header skipped).
    static func levels(_ wav: URL) throws -> [Double] {
        let data = try Data(contentsOf: wav).dropFirst(44)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        return stride(from: 0, to: samples.count - 7999, by: 8000).map { start in
            (samples[start..<start + 8000].reduce(0.0) { $0 + Double($1) * Double($1) } / 8000).squareRoot()
        }
    }

    /// When `PlaybackStatus` next says `status`, as a client following the signals sees it.
    static func whenStatus(_ podsd: PodsdProcess, becomes status: String) async throws -> Task<ContinuousClock.Instant?, Never> {
        let signals = try await podsd.connection.signals(matching: DBusSignalMatch(
            sender: MPRIS.busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        return Task {
            for await signal in signals where signal.arguments.dropFirst().first?.stringKeyedDictionary?["PlaybackStatus"] == .string(status) {
                return ContinuousClock.now
            }
            return nil
        }
    }

    static func status(_ podsd: PodsdProcess) async throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("status", "--json").stdout.utf8)) as? [String: Any])
    }

    @Test func aTimedSleepFadesOutPausesOnTimeAndRestoresTheVolume() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let tone = try await ChapterFixtures.make(.mp3, [], seconds: 40, name: "tone.mp3", in: directory)
        let wav = directory.appendingPathComponent("out.wav")
        let podsd = try await Self.start(recordingTo: wav)
        try await podsd.client.open(uri: tone.absoluteString)
        let paused = try await Self.whenStatus(podsd, becomes: "Paused")
        let setFrom = ContinuousClock.now
        try await PodsPlayerClient(podsd.client).setSleepTimer("13s")
        let setBy = ContinuousClock.now
        let timer = try #require(try await Self.status(podsd)["sleep"] as? [String: Any])
        #expect(timer["mode"] as? String == "time")
        #expect((timer["remaining"] as? Double).map { $0 > 10 && $0 <= 13 } == true, "\(timer)")
        let pausedAt = try #require(await paused.value)
        // The timer was set somewhere between the call and its reply.
        let early = (pausedAt - setBy) / .seconds(1), late = (pausedAt - setFrom) / .seconds(1)
        #expect(late >= 12.5 && early <= 13.5, "paused \(early)–\(late) s after the timer was set")
        #expect(try await Self.status(podsd)["sleep"] is NSNull)
        #expect(try await podsd.client.property("Volume") == .double(1))
        // What was played: full level, then ten seconds falling to silence.
        let levels = try Self.levels(wav)
        let full = levels[1]
        #expect(levels.count >= 12 && full > 1000, "\(levels)")
        let last = levels.count - 1
        #expect(levels[last - 8] > full * 0.6 && levels[last - 8] < full * 0.95, "\(levels)")
        #expect(levels[last - 4] > full * 0.25 && levels[last - 4] < full * 0.6, "\(levels)")
        #expect(levels[last] < full * 0.2, "\(levels)")
        // Playing again is at full volume.
        try await podsd.client.play()
        try await Task.sleep(for: .seconds(2.5))
        let resumed = try Self.levels(wav)
        #expect(resumed[resumed.count - 1] > full * 0.95, "\(resumed)")
    }

    @Test func pausingByHandKeepsTheTimer() async throws {
        let podsd = try await PodsdProcess.start()
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)
        #expect(await podsd.pods("sleep", "4s").status == 0)
        try await Task.sleep(for: .seconds(1))
        try await podsd.client.pause()
        let held = try #require(try await Self.status(podsd)["sleep"] as? [String: Any])["remaining"] as? Double
        try await Task.sleep(for: .seconds(2))
        let still = try #require(try await Self.status(podsd)["sleep"] as? [String: Any])["remaining"] as? Double
        #expect(held != nil && held == still, "\(String(describing: held)) then \(String(describing: still))")
        let paused = try await Self.whenStatus(podsd, becomes: "Paused")
        let resumedFrom = ContinuousClock.now
        try await podsd.client.play()
        let resumedBy = ContinuousClock.now
        let pausedAt = try #require(await paused.value)
        let (early, late) = ((pausedAt - resumedBy) / .seconds(1), (pausedAt - resumedFrom) / .seconds(1))
        #expect(late >= (held ?? 0) - 0.5 && early <= (held ?? 0) + 0.5, "paused \(early)–\(late) s after resuming with \(held ?? 0) s left")
    }

    @Test func atTheEndOfAChapterOrTheEpisode() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let marks = [ChapterFixtures.Mark(0, 20, "One"), ChapterFixtures.Mark(20, 30, "Two")]
        let mp3 = try await ChapterFixtures.make(.mp3, marks, seconds: 30, name: "c.mp3", in: directory)
        let feed = directory.appendingPathComponent("feed.xml")
        try sampleFeed([("a", "First", 1, mp3.absoluteString), ("b", "Second", 2, Fixtures.sampleMP3.absoluteString)])
            .write(to: feed)
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", feed.absoluteString).status == 0)
        let episodes = try await LibraryClient(podsd.client).episodesJSON()
        let first = try #require(episodes.first { $0["title"] as? String == "First" }?["id"] as? Int)
        #expect(await podsd.pods("play", String(first)).status == 0)
        try await waitFor { (try? await Self.status(podsd)["chapter"] as? [String: Any]) != nil }

        // The end of the chapter playing: from 17 s, a pause at 20 s.
        try await podsd.client.setPosition(.seconds(17))
        #expect(await podsd.pods("sleep", "chapter").status == 0)
        try await waitFor(timeout: .seconds(10)) { await podsd.playerctl("status").stdout.trimmed == "Paused" }
        let position = Double(try await podsd.client.property("Position").int64Value ?? 0) / 1_000_000
        #expect(abs(position - 20) <= 0.5, "paused at \(position)")

        // The end of the episode: it counts as played and the next one waits, paused.
        try await podsd.client.setPosition(.seconds(27))
        #expect(await podsd.pods("sleep", "end").status == 0)
        try await podsd.client.play()
        try await waitFor(timeout: .seconds(10)) {
            (try? await podsd.client.status().episodeId) != Int64(first)
        }
        #expect(await podsd.playerctl("status").stdout.trimmed == "Paused")
        let after = try await LibraryClient(podsd.client).episodesJSON()
        #expect(after.first { $0["id"] as? Int == first }?["completed"] as? Bool == true)

        // Bad input: one line, no timer.
        for bad in ["0", "0s", "25h", "soon"] {
            let result = await podsd.pods("sleep", bad)
            #expect(result.status != 0 && result.stderr.contains("a sleep timer is a time from 1s to 24h"), "\(bad): \(result)")
        }
        let refused = await podsd.run(Fixtures.executable("pods"), ["sleep", "chapter"])
        #expect(refused.status == 1 && refused.stderr == "pods: This episode has no chapters\n", "\(refused)")
        #expect(try await Self.status(podsd)["sleep"] is NSNull)
    }
}
