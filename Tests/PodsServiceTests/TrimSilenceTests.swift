import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// `trim-silence`: long silences play faster, positions stay in the file's time.
@Suite(.timeLimit(.minutes(10))) struct TrimSilenceTests {
    /// 4 s tone, 6 s silence, 4 s tone, 5 s silence, 4 s tone: 23 s with 11 s of silence.
    static func fileWithSilences(in directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent("silences.mp3")
        let tone = "sine=frequency=440:duration=4", quiet = "anullsrc=r=44100:cl=mono"
        let result = await Subprocess.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", tone, "-f", "lavfi", "-t", "6", "-i", quiet, "-f", "lavfi", "-i", tone,
            "-f", "lavfi", "-t", "5", "-i", quiet, "-f", "lavfi", "-i", tone,
            "-filter_complex", "[0][1][2][3][4]concat=n=5:v=0:a=1", "-ac", "1", "-y", url.path,
        ], timeout: .seconds(60))
        guard result.status == 0 else { throw TestSupportError("ffmpeg: \(result)") }
        return url
    }

    @Test func longSilencesPlayFasterAndTheSavingIsReported() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let file = try await Self.fileWithSilences(in: directory)
        let feed = directory.appendingPathComponent("feed.xml")
        try sampleFeed([("s", "Pauses", 1, file.absoluteString)], title: "Quiet Show").write(to: feed)
        let podsd = try await PodsdProcess.start(extraArguments: ["--no-auto-next"])
        #expect(await podsd.pods("subscribe", feed.absoluteString).status == 0)
        #expect(await podsd.pods("config", "--podcast", "Quiet", "trim-silence", "true").status == 0)

        let started = ContinuousClock.now
        #expect(await podsd.pods("play", "1").status == 0)
        // In the middle tone (file time 10–14 s) the position is the file's own.
        try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(20), every: .milliseconds(20)) { $0 >= 11 }
        let reachedEleven = (ContinuousClock.now - started) / .seconds(1)
        try await waitFor(timeout: .seconds(30)) { await podsd.playerctl("status").stdout.trimmed == "Stopped" }
        let wall = (ContinuousClock.now - started) / .seconds(1)
        let status = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("status", "--json").stdout.utf8))
            as? [String: Any])
        let saved = try #require(status["silenceSkipped"] as? Double)
        // 11 s of silence, each stretch kept for 0.4 s then played 8× faster: about 9 s saved.
        print("trim-silence: 23 s file with 11 s of silence played in \(wall) s; silenceSkipped \(saved) s; file time 11 s at \(reachedEleven) s")
        #expect(saved > 7 && saved < 10.5, "saved \(saved)")
        #expect(wall < 23 - 6 && wall > 23 - 11, "played in \(wall) s")
        #expect(reachedEleven < 11 - 2, "the first silence was shortened: file time 11 s after \(reachedEleven) s")
        let episodes = try await LibraryClient(podsd.client).episodesJSON()
        #expect(episodes.first?["completed"] as? Bool == true)
    }

    @Test func offByDefaultNothingIsSkipped() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let file = try await Self.fileWithSilences(in: directory)
        let podsd = try await PodsdProcess.start()
        try await podsd.client.open(uri: file.absoluteString)
        try await podsd.client.setPosition(.seconds(3))
        let started = ContinuousClock.now
        try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(15), every: .milliseconds(20)) { $0 >= 11 }
        let took = (ContinuousClock.now - started) / .seconds(1)
        #expect(took > 7.5, "8 s of file took \(took) s")
        let status = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("status", "--json").stdout.utf8))
            as? [String: Any])
        #expect(status["silenceSkipped"] as? Double == 0)
    }
}
