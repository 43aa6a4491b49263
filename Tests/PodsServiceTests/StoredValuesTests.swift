import Foundation
import Glibc
import PodsClient
import PodsProtocol
import PodsTestSupport
import Testing

/// What an older Pods stored is outside input: a library written by today's
/// code, then its rows edited to every boundary value (as an older, laxer
/// Pods or a hand could leave them), is opened and driven down every path —
/// play, show, chapters, transcript, find, stats, bookmarks, sync, `pods ui` —
/// and podsd lives (REVIEW-4, N3: a transcript cue at 1e300 s killed podsd
/// at every play of its episode).
@Suite(.serialized, .timeLimit(.minutes(4))) struct StoredValuesTests {
    /// Each statement sets a stored value to a boundary (`python3`'s sqlite3: the suite's own SQLite client).
    static let edits = [
        // A transcript kept with cue times no episode has: one past Int.max in centiseconds, one negative.
        #"UPDATE transcript SET cues = '[{"start":0,"end":2,"text":"first"},{"start":1e300,"end":1e301,"text":"second"},{"start":-1,"text":"third"},{"start":9.3e16,"text":"fourth"}]'"#,
        "UPDATE episode SET duration = 1e300, position = -1",
        "INSERT INTO bookmark (episodeId, position, note, createdAt) SELECT id, 1e300, 'huge', 0 FROM episode",
        "INSERT INTO bookmark (episodeId, position, note, createdAt) SELECT id, -1e300, 'negative', 0 FROM episode",
        "INSERT INTO playSession (episodeId, podcastId, episodeTitle, podcastTitle, startedAt, seconds, fromPosition, toPosition, rate) SELECT id, podcastId, 'x', 'y', 1 + id, 1e300, -1, 9.3e18, 0 FROM episode",
        "UPDATE episode SET title = title || '" + String(repeating: "long title ", count: 100) + "'",
        // 5 MB of notes and a 5 MB author: what no parser today keeps, an older Pods or a hand may have.
        "UPDATE episode SET author = replace(hex(zeroblob(2500000)), '0', 'a')",
        "UPDATE episodeDetail SET description = replace(hex(zeroblob(2500000)), '0', 'n '), descriptionHTML = replace(hex(zeroblob(2500000)), '0', '<a ')",
        "UPDATE podcast SET link = 'file:///etc/passwd', artworkURL = 'file:///etc/passwd'",
        "UPDATE episode SET link = 'file:///etc/passwd', artworkURL = 'file:///etc/shadow'",
    ]

    static func edit(_ library: URL, _ statements: [String]) async {
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            for statement in sys.argv[2:]:
                db.execute(statement)
            db.commit()
            """
        let result = await Subprocess.run("/usr/bin/python3", ["-c", script, library.path] + statements, timeout: .seconds(30))
        #expect(result.status == 0, "\(result)")
    }

    @Test func aLibraryEditedToEveryBoundaryIsDrivenDownEveryPathAndPodsdLives() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (podsd, server, episode) = try await TranscriptFollowServiceTests.start(in: directory)
        defer { server.stop() }
        // Today's code stores the transcript (and the rest of the library).
        #expect(await podsd.pods("play", String(episode)).status == 0)
        try await waitFor(timeout: .seconds(10)) { await podsd.pods("transcript").stdout.contains("Line 2") }
        let read = await podsd.pods("transcript")
        #expect(read.status == 0 && read.stdout.contains("Line 2"), "\(read)")
        #expect(await podsd.signal(SIGTERM)?.status == 0)

        await Self.edit(podsd.directory.appendingPathComponent("data/library.sqlite"), Self.edits)
        let again = try await PodsdProcess.start(bus: podsd.bus, directory: podsd.directory)
        let id = String(episode)
        for arguments in [["play", id], ["status"], ["transcript"], ["transcript", "--json"], ["show", id], ["show", "--transcript", id], ["chapters"],
                          ["find", "second"], ["stats"], ["bookmarks"], ["play", "--bookmark", "1"], ["play", "--bookmark", "2"],
                          ["episodes", "--json"], ["podcasts", "--json"], ["queue"], ["pause"]] {
            let result = await again.run(Fixtures.executable("pods"), arguments)
            #expect(!result.timedOut, "pods \(arguments.joined(separator: " ")): \(result)")
            #expect(again.isRunning, "podsd died at pods \(arguments.joined(separator: " ")): \(again.errorOutput().suffix(2_000))")
        }
        // A play another device made, without a total: the stored length (1e300) is the episode's. The hostile
        // world's second library found podsd dying of turning that length into a Duration.
        let sync = try SyncServerStandIn(api: .nextcloud)
        defer { sync.stop() }
        let action = #"{"actions":[{"podcast":"\#(server.url("/feed.xml"))","episode":"\#(server.url("/talk.mp3"))","guid":"t","#
            + #""action":"PLAY","timestamp":"2026-01-01T00:00:00+00:00","started":0,"position":12}],"timestamp":1700000000}"#
        sync.intercept { request, _ in
            request.method == "GET" && request.path.hasSuffix("/episode_action") ? .init(body: Data(action.utf8)) : nil
        }
        let setup = await again.run(Fixtures.executable("pods"), ["sync", "setup", sync.url, "--user", "alice", "--api", "nextcloud",
                                                                  "--password-stdin"], input: "s3cret-app-pw\n")
        #expect(setup.status == 0, "\(setup)")
        let synced = await again.run(Fixtures.executable("pods"), ["sync"], timeout: .seconds(60))
        #expect(!synced.timedOut && again.isRunning, "pods sync: \(synced)\n\(again.errorOutput().suffix(2_000))")
        // The transcript read back keeps its times in range; a time out of range is no time (the line stays, untimed).
        let transcript = await again.pods("transcript")
        #expect(transcript.stdout.split(separator: "\n").map(String.init) == ["[0:00] first", "second", "third", "fourth"], "\(transcript)")
        // Played long enough for the line window to take in every stored cue.
        #expect(await again.pods("play", id).status == 0)
        try await Task.sleep(for: .seconds(3))
        #expect(again.isRunning, "\(again.errorOutput().suffix(2_000))")
        #expect(again.fatalSignal == nil)
        // pods ui too: the transcript layout (9), its last line pressed, and the find layout (0).
        let terminal = try await TmuxSession([Fixtures.executable("pods"), "ui"],
                                             environment: again.bus.environment.merging(["TERM": "xterm-256color"]) { $1 })
        do {
            try await terminal.waitFor("Talk")
            await terminal.send("9")
            try await terminal.waitFor("Transcript")
            await terminal.send("G")
            await terminal.send("Enter")
            await terminal.send("0")
            try await terminal.waitFor("Find in everything heard:")
            await terminal.send("second", literal: true)
            await terminal.send("Enter")
            try await Task.sleep(for: .seconds(1))
            let ended = await terminal.exited(), screen = await terminal.screen()
            #expect(!ended, "pods ui ended: \(screen)")
        } catch {
            await terminal.stop()
            throw error
        }
        await terminal.stop()
        #expect(again.isRunning, "\(again.errorOutput().suffix(2_000))")
        #expect(await again.signal(SIGTERM)?.status == 0)
    }
}
