import Foundation
import Glibc
import PodsClient
import PodsTestSupport
import Testing

/// `loudness = "on"` on the real podsd: what it plays is captured (a file
/// sink, in real time) and measured by ffmpeg's own EBU R 128 meter, beside
/// the fixtures' own figures.
@Suite(.timeLimit(.minutes(5))) struct LoudnessServiceTests {
    /// What ffmpeg's `ebur128` says of a file: integrated loudness, true
    /// peak, and the short-term loudness every 0.1 s.
    struct Reading {
        var integrated: Double
        var truePeak: Double
        var shortTerm: [(time: Double, loudness: Double)]
        /// Every 0.1 s, over the last 400 ms.
        var momentary: [(time: Double, loudness: Double)] = []
    }

    /// Pink noise shaped like speech (a 1.5 Hz swell, 2 s of silence every
    /// 7 s), 20 s of stereo MP3 made to read `lufs`. `peaky`: with a 1 ms
    /// burst 30 dB over the noise every 4 s, as a clap is (loud, but too
    /// short to carry much of the loudness; bursts that carry it lose
    /// loudness to any ceiling).
    static func fixture(_ lufs: Double, peaky: Bool = false, in directory: URL) async throws -> (file: URL, reading: Reading) {
        let base = directory.appendingPathComponent(peaky ? "peaky.wav" : "base.wav")
        if !FileManager.default.fileExists(atPath: base.path) {
            let noise = "anoisesrc=color=pink:seed=7:d=20:a=0.2,tremolo=f=1.5:d=0.6,volume=enable='between(mod(t,7),5,7)':volume=0"
            let source = peaky ? "\(noise)[n];aevalsrc='0.9*sin(2*PI*2500*t)*lt(mod(t,4),0.001)':d=20:s=44100[b];[n][b]amix=inputs=2:normalize=0"
                : noise
            try await ffmpeg(["-f", "lavfi", "-i", source, "-ac", "2", "-ar", "44100", "-y", base.path])
        }
        let own = try await measure(base)
        let file = directory.appendingPathComponent("show\(Int(lufs))\(peaky ? "-peaky" : "").mp3")
        try await ffmpeg(["-i", base.path, "-af", "volume=\(lufs - own.integrated)dB", "-c:a", "libmp3lame", "-b:a", "128k", "-y", file.path])
        return (file, try await measure(file))
    }

    static func ffmpeg(_ arguments: [String]) async throws {
        let result = await Subprocess.run("ffmpeg", ["-v", "error"] + arguments, timeout: .seconds(60))
        guard result.status == 0 else { throw TestSupportError("ffmpeg: \(result.stderr)") }
    }

    /// `file` through `ebur128=peak=true`; `raw`: 48 kHz stereo F32LE, as the capture is.
    static func measure(_ file: URL, raw: Bool = false) async throws -> Reading {
        let input = raw ? ["-f", "f32le", "-ar", "48000", "-ac", "2", "-i", file.path] : ["-i", file.path]
        let result = await Subprocess.run("ffmpeg", ["-nostats", "-loglevel", "verbose"] + input + ["-af", "ebur128=peak=true:framelog=verbose", "-f", "null", "-"],
                                          timeout: .seconds(60))
        var shortTerm: [(Double, Double)] = [], momentary: [(Double, Double)] = []
        var integrated: Double?, peak: Double?
        for line in result.stderr.split(separator: "\n") {
            let words = line.split(separator: " ")
            if let t = words.firstIndex(of: "t:"), let s = words.firstIndex(of: "S:"), t + 1 < words.count, s + 1 < words.count,
               let time = Double(words[t + 1]), let loudness = Double(words[s + 1]) {
                shortTerm.append((time, loudness))
                if let m = words.firstIndex(of: "M:"), m + 1 < words.count, let value = Double(words[m + 1]) { momentary.append((time, value)) }
            } else if words.first == "I:", words.count > 1 {
                integrated = Double(words[1])
            } else if words.first == "Peak:", words.count > 1 {
                peak = Double(words[1])
            }
        }
        guard let integrated, let peak else { throw TestSupportError("ebur128 read nothing: \(result.stderr.suffix(500))") }
        return Reading(integrated: integrated, truePeak: peak, shortTerm: shortTerm, momentary: momentary)
    }

    /// Plays `file` from its start in a podsd with `config`, capturing what
    /// it plays; what ffmpeg reads of the capture.
    static func played(_ file: URL, config: String, in directory: URL) async throws -> Reading {
        let run = directory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        try Data(config.utf8).write(to: run.appendingPathComponent("config.toml"))
        let capture = run.appendingPathComponent("played.raw")
        let podsd = try await PodsdProcess.start(
            extraArguments: ["--no-auto-next"], directory: run,
            audioSink: "audioconvert ! audioresample ! audio/x-raw,format=F32LE,rate=48000,channels=2 ! filesink location=\(capture.path) sync=true")
        try await podsd.client.open(uri: file.absoluteString)
        try await waitFor(timeout: .seconds(60)) { await podsd.playerctl("status").stdout.trimmed == "Stopped" }
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        return try await measure(capture, raw: true)
    }

    /// How fast the gain moved, LU per second, after the first `settling`
    /// seconds (of the capture): the capture's short-term loudness less the
    /// fixture's at the same moment of the file (`rate` file seconds a second).
    static func fastestMovement(_ played: Reading, _ original: Reading, rate: Double = 1, after settling: Double = 5,
                                momentary: Bool = false) -> Double {
        let (out, into) = momentary ? (played.momentary, original.momentary) : (played.shortTerm, original.shortTerm)
        func gain(at time: Double) -> Double? {
            guard let out = out.last(where: { $0.time <= time + 1e-6 }),
                  let into = into.last(where: { $0.time <= time * rate + 1e-6 }),
                  out.loudness > -60, into.loudness > -60 else { return nil }
            return out.loudness - into.loudness
        }
        var fastest = 0.0
        let end = (out.last?.time ?? 0) - 1
        for step in stride(from: settling, to: end, by: 0.1) {
            if let now = gain(at: step), let later = gain(at: step + 1) { fastest = max(fastest, abs(later - now)) }
        }
        return fastest
    }

    /// Fixtures at −30 and −14 LUFS leave at −16 (±1.5 LU), the gain moving
    /// at most 3 LU/s after the first 5 s; the same at 1.5× with silence
    /// trimmed; untouched (±0.2 LU) with loudness off; never over −1 dBTP.
    @Test func quietAndLoudShowsLeaveAtTheTargetAndOffLeavesThemAlone() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let quiet = try await Self.fixture(-30, in: directory)
        let loud = try await Self.fixture(-14, in: directory)
        let peaky = try await Self.fixture(-30, peaky: true, in: directory)
        async let quietPlayed = Self.played(quiet.file, config: "loudness = \"on\"\n", in: directory)
        async let loudPlayed = Self.played(loud.file, config: "loudness = \"on\"\n", in: directory)
        async let fastPlayed = Self.played(quiet.file, config: "loudness = \"on\"\nspeed = 1.5\ntrim-silence = true\n", in: directory)
        async let offPlayed = Self.played(quiet.file, config: "", in: directory)
        async let peakyPlayed = Self.played(peaky.file, config: "loudness = \"on\"\n", in: directory)
        let (quietOut, loudOut, fastOut, offOut, peakyOut) = try await (quietPlayed, loudPlayed, fastPlayed, offPlayed, peakyPlayed)

        let quietMoved = Self.fastestMovement(quietOut, quiet.reading), loudMoved = Self.fastestMovement(loudOut, loud.reading)
        print(String(format: "loudness: fixture %.1f LUFS (peak %.1f dBTP) played at %.1f LUFS (peak %.1f), gain moved ≤ %.2f LU/s after 5 s",
                     quiet.reading.integrated, quiet.reading.truePeak, quietOut.integrated, quietOut.truePeak, quietMoved))
        print(String(format: "loudness: fixture %.1f LUFS (peak %.1f dBTP) played at %.1f LUFS (peak %.1f), gain moved ≤ %.2f LU/s after 5 s",
                     loud.reading.integrated, loud.reading.truePeak, loudOut.integrated, loudOut.truePeak, loudMoved))
        print(String(format: "loudness: fixture %.1f LUFS at 1.5× with trim-silence played at %.1f LUFS (peak %.1f); off: %.1f LUFS",
                     quiet.reading.integrated, fastOut.integrated, fastOut.truePeak, offOut.integrated))
        print(String(format: "loudness: fixture %.1f LUFS with bursts (peak %.1f dBTP) played at %.1f LUFS (peak %.1f)",
                     peaky.reading.integrated, peaky.reading.truePeak, peakyOut.integrated, peakyOut.truePeak))
        // The bursts would pass 0 dBTP at the gain: they are held under the ceiling.
        #expect(peaky.reading.truePeak + (-16 - peaky.reading.integrated) > 0)
        for out in [quietOut, loudOut, fastOut] {
            #expect(abs(out.integrated - -16) <= 1.5, "played at \(out.integrated) LUFS")
            #expect(out.truePeak <= -1 + 0.3, "true peak \(out.truePeak) dBTP")
        }
        // Held under the ceiling, the bursts lose their share of the loudness (and the moment after each
        // its part): the rest reaches the target within 2 LU.
        #expect(peakyOut.truePeak <= -1 + 0.3, "true peak \(peakyOut.truePeak) dBTP")
        #expect(abs(peakyOut.integrated - -16) <= 2, "played at \(peakyOut.integrated) LUFS")
        #expect(quietMoved <= 3 && loudMoved <= 3, "moved \(quietMoved), \(loudMoved) LU/s")
        // The same reading, of the momentary loudness (ffmpeg's short-term begins at 3 s), sees the
        // first seconds' rise of 14 dB: it can see movement.
        #expect(Self.fastestMovement(quietOut, quiet.reading, after: 0, momentary: true) > 5)
        #expect(abs(offOut.integrated - quiet.reading.integrated) <= 0.2, "off: \(offOut.integrated) against \(quiet.reading.integrated)")
    }

    /// A download of a podcast whose loudness is on is measured whole, once,
    /// and kept: it plays at its gain from the first second, and `pods
    /// downloads` says what it measured. A download that is no audio is
    /// measured by a helper that fails, and nothing is kept for it.
    @Test func aDownloadIsMeasuredOnceAndLevelledFromItsStart() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let quiet = try await Self.fixture(-30, in: directory)
        let garbage = directory.appendingPathComponent("garbage.mp3")
        try Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }).write(to: garbage)
        let server = try LoopbackHTTPServer(files: ["/quiet.mp3": quiet.file, "/garbage.mp3": garbage])
        let feed = directory.appendingPathComponent("feed.xml")
        try sampleFeed([("q", "Quiet one", 1, server.url("/quiet.mp3")), ("g", "Garbage", 2, server.url("/garbage.mp3"))],
                       title: "Quiet Show").write(to: feed)
        let podsd = try await PodsdProcess.start(extraArguments: ["--no-auto-next"])
        #expect(await podsd.pods("subscribe", feed.absoluteString).status == 0)
        #expect(await podsd.pods("config", "--podcast", "Quiet", "loudness", "on").status == 0)
        let ids = try await LibraryClient(podsd.client).episodesJSON().reduce(into: [String: Int]()) { ids, episode in
            if let title = episode["title"] as? String, let id = episode["id"] as? Int { ids[title] = id }
        }
        let quietID = try #require(ids["Quiet one"]), garbageID = try #require(ids["Garbage"])
        #expect(await podsd.pods("download", String(garbageID)).status == 0)
        #expect(await podsd.pods("download", String(quietID)).status == 0)
        var measured: Double?
        var list: [[String: Any]] = []
        try await waitFor(timeout: .seconds(30)) {
            list = (try? JSONSerialization.jsonObject(with: Data(await podsd.pods("downloads", "--json").stdout.utf8)) as? [[String: Any]]) ?? []
            measured = list.first { $0["episodeId"] as? Int == quietID }?["loudness"] as? Double
            return measured != nil
        }
        #expect(list.first { $0["episodeId"] as? Int == garbageID }?["state"] as? String == "downloaded")
        let kept = try #require(measured)
        #expect(abs(kept - quiet.reading.integrated) < 0.3, "measured \(kept), ffmpeg \(quiet.reading.integrated)")
        #expect(await podsd.pods("downloads").stdout.contains(String(format: "%.1f LUFS", kept)))

        #expect(await podsd.pods("play", String(quietID)).status == 0)
        try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(10), every: .milliseconds(20)) { $0 >= 0.3 }
        let status = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("status", "--json").stdout.utf8))
            as? [String: Any])
        let gain = try #require(status["loudnessGain"] as? Double)
        print(String(format: "loudness: a download measured at %.2f LUFS (ffmpeg %.2f) played at %+.2f dB 0.3 s in", kept,
                     quiet.reading.integrated, gain))
        #expect(abs(gain - (-16 - kept)) < 0.05, "gain \(gain) at 0.3 s")
        #expect(await podsd.pods("status").stdout.contains(String(format: "levelled %+.1f dB", gain)))
        // Off for the podcast: the gain goes at once, and the status says nothing of it.
        #expect(await podsd.pods("config", "--podcast", "Quiet", "loudness", "off").status == 0)
        try await waitFor(timeout: .seconds(5)) { !(await podsd.pods("status").stdout.contains("levelled")) }
        // The garbage's helper failed (said once in the log), nothing is kept for it, and podsd lives on.
        list = (try JSONSerialization.jsonObject(with: Data(await podsd.pods("downloads", "--json").stdout.utf8)) as? [[String: Any]]) ?? []
        #expect(list.first { $0["episodeId"] as? Int == garbageID }?["loudness"] is NSNull)
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        #expect(podsd.errorOutput().contains("episode \(garbageID)'s download could not be measured for loudness"))
    }
}
