import Foundation
import Glibc
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// A timed transcript follows playback on the real podsd: MPRIS `Metadata`
/// carries the line playing (`pods:cue`) and the lines around it as LRC
/// (`xesam:asText`), changing as each line is reached at 1× and at 2×, at
/// most twice a second, and not at all while paused; `playerctl` and `pods
/// transcript --follow` read them. (Playing lane: it times the changes.)
@Suite(.serialized, .timeLimit(.minutes(4))) struct TranscriptFollowServiceTests {
    /// Lines of 2 s each: "Line 1" from 0 s, "Line 2" from 2 s, …
    static func vtt(lines: Int) -> Data {
        func stamp(_ seconds: Int) -> String { String(format: "00:%02d:%02d.000", seconds / 60, seconds % 60) }
        return Data(("WEBVTT\n\n" + (1...lines).map { "\(stamp(2 * ($0 - 1))) --> \(stamp(2 * $0))\nLine \($0)\n" }
            .joined(separator: "\n")).utf8)
    }

    /// Each change of `pods:cueIndex` the test's own connection hears: when, and which.
    final class CueLog: @unchecked Sendable {
        // @unchecked Sendable: `entries` is only touched under `lock`.
        private let lock = NSLock()
        private var entries: [(at: ContinuousClock.Instant, index: Int, metadata: Bool)] = []
        func add(_ index: Int?, at instant: ContinuousClock.Instant) {
            lock.lock()
            defer { lock.unlock() }
            entries.append((instant, index ?? 0, index != nil))
        }
        var all: [(at: ContinuousClock.Instant, index: Int, metadata: Bool)] {
            lock.lock()
            defer { lock.unlock() }
            return entries
        }
    }

    /// A podsd subscribed to a podcast of one 40 s episode with a WebVTT
    /// transcript of 2 s lines; the episode's id.
    static func start(in directory: URL) async throws -> (PodsdProcess, LoopbackHTTPServer, Int) {
        let audio = directory.appendingPathComponent("talk.mp3")
        let made = await Subprocess.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=330:duration=40", "-ac", "1",
                                                   "-y", audio.path], timeout: .seconds(60))
        #expect(made.status == 0)
        let server = try LoopbackHTTPServer(files: ["/talk.mp3": audio])
        server.setFile("/talk.vtt", Self.vtt(lines: 20), type: "text/vtt")
        server.setFile("/feed.xml", Data("""
            <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"
              xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
            <channel><title>Words</title>
            <item><title>Talk</title><guid>t</guid><pubDate>02 Nov 2026 08:00:00 GMT</pubDate><itunes:duration>40</itunes:duration>
              <enclosure url="\(server.url("/talk.mp3"))" type="audio/mpeg" length="320000"/>
              <podcast:transcript url="\(server.url("/talk.vtt"))" type="text/vtt"/></item>
            </channel></rss>
            """.utf8))
        let podsd = try await PodsdProcess.start(extraArguments: ["--no-auto-next"])
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        let episode = try #require(try await LibraryClient(podsd.client).episodesJSON().first?["id"] as? Int)
        return (podsd, server, episode)
    }

    @Test func theLinePlayingIsInMetadataAtOneAndTwoTimesAndNothingMovesWhilePaused() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (podsd, server, episode) = try await Self.start(in: directory)
        defer { server.stop() }

        // Every PropertiesChanged of the Player interface, and the cue it carries if any.
        let log = CueLog()
        let changes = try await podsd.connection.signals(matching: DBusSignalMatch(
            path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        let listener = Task {
            for await change in changes {
                let changed = change.arguments.dropFirst().first?.stringKeyedDictionary ?? [:]
                let metadata = changed["Metadata"]?.stringKeyedDictionary
                log.add(metadata.map { Int($0[MPRIS.Metadata.cueIndex]?.int64Value ?? 0) }, at: .now)
            }
        }
        defer { listener.cancel() }

        // 1×: a real client follows the lines as they are heard.
        let started = ContinuousClock.now
        #expect(await podsd.pods("play", String(episode)).status == 0)
        let heard = await podsd.run("playerctl", ["-p", "pods", "metadata", "--format", "{{pods:cueIndex}} {{pods:cue}}", "--follow"],
                                    timeout: .milliseconds(6500))
        let followed = heard.stdout.split(separator: "\n").map(String.init).filter { $0.contains("Line") }
        #expect(Array(followed.prefix(3)) == ["1 Line 1", "2 Line 2", "3 Line 3"], "\(heard.stdout)")
        let metadata = try #require(try await podsd.client.property(MPRIS.PlayerProperty.metadata.name).stringKeyedDictionary)
        let lyrics = try #require(metadata[MPRIS.Metadata.text]?.stringValue)
        #expect(lyrics.hasPrefix("[00:02.00]Line 2\n[00:04.00]Line 3\n[00:06.00]Line 4"), "\(lyrics)")

        // Each line arrived when playback reached it (the file's time at 1×, after the load).
        let atOne = log.all.filter { $0.metadata && $0.index > 0 }
        let first = try #require(atOne.first { $0.index == 1 })
        for line in atOne where line.index > 1 && line.index <= 3 {
            let late = (line.at - first.at) / .seconds(1) - Double(2 * (line.index - 1))
            #expect(abs(late) < 0.3, "line \(line.index) came \(late) s off its time")
        }
        print("transcript at 1×: lines 2 and 3 came \(atOne.filter { $0.index > 1 && $0.index <= 3 }.map { ($0.at - first.at) / .seconds(1) }) s after line 1 (at 2 and 4); first line \((first.at - started) / .seconds(1)) s after the play")

        // Paused: no PropertiesChanged at all for 3 s.
        try await podsd.client.pause()
        try await Task.sleep(for: .milliseconds(300))
        let pausedAt = ContinuousClock.now
        let monitor = await podsd.run("dbus-monitor", ["--session",
            "type='signal',path='/org/mpris/MediaPlayer2',interface='org.freedesktop.DBus.Properties'"], timeout: .seconds(3))
        #expect(monitor.stdout.contains("member=NameAcquired") && !monitor.stdout.contains("PropertiesChanged"), "\(monitor.stdout)")
        #expect(log.all.filter { $0.at > pausedAt }.isEmpty, "while paused: \(log.all.filter { $0.at > pausedAt })")

        // 2×: `pods transcript --follow` hears a line a second, each once, in order.
        try await podsd.client.setRate(2)
        try await podsd.client.play()
        let resumedAt = ContinuousClock.now
        let fast = await podsd.run(Fixtures.executable("pods"), ["transcript", "--follow"], timeout: .milliseconds(4200))
        let fastLines = fast.stdout.split(separator: "\n").map { String($0.split(separator: " ", maxSplits: 2).last ?? "") }
        let numbers = fast.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        #expect(numbers.count >= 4 && numbers == Array(numbers.first!...(numbers.first! + numbers.count - 1)), "\(fast.stdout)")
        let atTwo = log.all.filter { $0.metadata && $0.at > resumedAt && $0.index > 0 }
        let gaps = zip(atTwo, atTwo.dropFirst()).map { ($1.at - $0.at) / .seconds(1) }
        #expect(gaps.dropFirst().allSatisfy { abs($0 - 1) < 0.3 }, "gaps at 2×: \(gaps)")
        #expect(gaps.allSatisfy { $0 >= 0.45 }, "more than 2 changes a second: \(gaps)")
        // As JSON, one object a line: the line playing now first.
        let json = await podsd.run(Fixtures.executable("pods"), ["transcript", "--follow", "--json"], timeout: .milliseconds(1500))
        let objects = json.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.first.map { Set($0.keys) == ["index", "start", "text"] && ($0["text"] as? String)?.hasPrefix("Line") == true } == true,
                "\(json.stdout)")
        print("transcript at 2×: \(fastLines.count) lines in 4.2 s from pods transcript --follow; gaps \(gaps.map { String(format: "%.2f", $0) })")
    }

    /// `pods ui`'s transcript layout (9) marks the line being heard as
    /// playback moves, and Enter on a line goes there; layout 0 finds a
    /// line by its words, and Enter plays from it.
    @Test func theUIsTranscriptFollowsAndEnterGoesToALine() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (podsd, server, episode) = try await Self.start(in: directory)
        defer { server.stop() }
        #expect(await podsd.pods("play", String(episode)).status == 0)
        let terminal = try await TmuxSession([Fixtures.executable("pods"), "ui"],
                                             environment: podsd.bus.environment.merging(["TERM": "xterm-256color"]) { $1 },
                                             columns: 100, rows: 30)
        do {
            try await terminal.waitFor("Talk")
            await terminal.send("9")
            try await terminal.waitFor("Transcript (20)")
            try await terminal.waitForScreen(timeout: .seconds(10), "line 2 being heard") { $0.contains("▶ 0:02  Line 2") }
            try await terminal.waitForScreen(timeout: .seconds(5), "line 3 being heard") {
                $0.contains("▶ 0:04  Line 3") && $0.contains("· 0:02  Line 2")
            }
            await terminal.send("G")  // the last line
            await terminal.send("Enter")
            try await terminal.waitForScreen(timeout: .seconds(10), "the last line being heard") { $0.contains("▶ 0:38  Line 20") }
            let position = try await podsd.client.status().position
            #expect(position >= 38 && position < 40, "at \(position)")
            // Layout 0 finds words heard: the line, when it is heard, and Enter plays from there.
            await terminal.send("0")
            try await terminal.waitFor("Find in everything heard:")
            await terminal.send("line 16", literal: true)
            await terminal.send("Enter")
            try await terminal.waitForScreen(timeout: .seconds(10), "the line found") {
                $0.contains("Found: line 16 (1)") && $0.contains("0:30  [Line] [16]")
            }
            await terminal.send("Enter")
            try await waitFor(timeout: .seconds(10)) {
                let position = (try? await podsd.client.status().position) ?? 0
                return position >= 30 && position < 34
            }
        } catch {
            await terminal.stop()
            throw error
        }
        await terminal.stop()
    }

    /// `pods find` finds a transcript line by its words and says when it is
    /// heard; `pods play N --at TIME` plays from there, with the line there
    /// playing; a time past the end is one line and changes nothing.
    @Test func playAtATimeStartsThereWithItsLine() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (podsd, server, episode) = try await Self.start(in: directory)
        defer { server.stop() }
        // Found by its words (the transcript fetched once as the episode first loads), then played from there.
        #expect(await podsd.pods("play", String(episode)).status == 0)
        try await waitFor(timeout: .seconds(10)) { (try? await podsd.client.status().cue) != nil }
        let found = await podsd.pods("find", "line", "16")
        #expect(found.status == 0 && found.stdout.contains("Talk — Words  (transcript)  at 0:30") && found.stdout.contains("[Line] [16]"),
                "\(found)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("find", "--json", "line 16").stdout.utf8))
            as? [[String: Any]])
        #expect(json.count == 1 && json.first?["at"] as? Double == 30 && json.first?["kind"] as? String == "transcript", "\(json)")
        #expect(await podsd.pods("find", "talk").stdout.contains("(title)"))
        #expect(await podsd.pods("find", "nothing\"like(this").stdout.contains("Nothing found."))
        #expect(await podsd.pods("play", String(episode), "--at", "0:30").status == 0)
        try await waitFor(timeout: .seconds(5)) { (try? await podsd.client.status().cue?.index) == 16 }
        let status = try await podsd.client.status()
        #expect(status.position >= 30 && status.position < 32 && status.cue?.text == "Line 16", "\(status)")
        let past = await podsd.pods("play", String(episode), "--at", "1:00")
        #expect(past.status == 1 && past.stderr.contains("past its end") && past.stderr.split(separator: "\n").count == 1, "\(past)")
        let wrong = await podsd.pods("play", String(episode), "--at", "+5")
        #expect(wrong.status != 0 && wrong.stderr.contains("--at takes a time"), "\(wrong)")
        #expect(try await podsd.client.status().position >= 30)
    }
}
