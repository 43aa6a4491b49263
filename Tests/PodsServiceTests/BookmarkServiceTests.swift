import Foundation
import Glibc
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// Bookmarks on the real podsd, through `pods` and the bus: taken with a
/// note and the transcript's line, told by a notification, listed and
/// exported, played from without moving the resume position, kept through
/// kill -9. (In the waiting lane: it times the Bookmark call.)
@Suite(.serialized, .timeLimit(.minutes(5))) struct BookmarkServiceTests {
    @Test func aBookmarkKeepsItsMomentNoteAndCueAndPlaysWithoutMovingTheResumePoint() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/t.srt", Data("1\n00:00:01,000 --> 00:00:03,000\nHello.\n\n2\n00:01:05,000 --> 00:01:08,000\nThe great point.\n".utf8),
                       type: "application/x-subrip")
        server.setFile("/feed.xml", Data("""
            <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0">
            <channel><title>Marks</title>
            <item><title>Marked episode</title><guid>m</guid><pubDate>02 Nov 2026 08:00:00 GMT</pubDate>
              <enclosure url="\(server.url("/a.mp3"))" type="audio/mpeg" length="720000"/>
              <podcast:transcript url="\(server.url("/t.srt"))" type="application/srt"/></item>
            </channel></rss>
            """.utf8))
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bus = try await PrivateBus.start()
        let notifications = try await NotificationServer.start(on: bus)
        var podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        let episode = try #require(try await LibraryClient(podsd.client).episodesJSON().first?["id"] as? Int)

        // Nothing loaded: one clear line, nothing kept.
        let early = await podsd.pods("bookmark", "too soon")
        #expect(early.status == 1 && early.stderr.contains("no episode is loaded") && early.stderr.split(separator: "\n").count == 1,
                "\(early)")

        // The transcript is kept (a bookmark never fetches it), the episode paused at 1:05.5.
        #expect(await podsd.pods("show", String(episode), "--transcript").status == 0)
        #expect(await podsd.pods("play", String(episode)).status == 0)
        try await waitFor(timeout: .seconds(10)) { (try? await podsd.client.status().state) == .playing }
        try await podsd.client.pause()
        try await podsd.client.setPosition(.milliseconds(65_500))
        try await waitFor(timeout: .seconds(10)) { await Self.savedPosition(podsd, episode).map { abs($0 - 65.5) < 0.3 } ?? false }
        let resumeBefore = try #require(await Self.savedPosition(podsd, episode))

        let taken = await podsd.pods("bookmark", "great point")
        #expect(taken.status == 0 && taken.stdout.hasPrefix("Bookmark "), "\(taken)")
        try await waitFor(timeout: .seconds(10)) { !notifications.notifications.isEmpty }
        let shown = try #require(notifications.notifications.first)
        #expect(shown.summary == "Bookmark at 1:05" && shown.body == "Marked episode: great point", "\(shown)")

        // One call on the bus answers fast (p95 of 20 under 100 ms), each a bookmark of its own.
        var took: [Duration] = []
        for index in 1...20 {
            let start = ContinuousClock.now
            _ = try await podsd.connection.call(destination: PodsBus.name, path: PlayerNames.objectPath, interface: PlayerNames.interface,
                                                member: PlayerMethod.bookmark.name, arguments: [.string("quick \(index)")])
            took.append(ContinuousClock.now - start)
        }
        let p95 = took.sorted()[18]
        print("Bookmark over the bus: p95 \(p95) of 20 calls (median \(took.sorted()[10]))")
        #expect(p95 < .milliseconds(100), "Bookmark p95 \(p95)")

        // Listed with its moment, note and cue; a note from a client loses its control characters.
        _ = try await podsd.connection.call(destination: PodsBus.name, path: PlayerNames.objectPath, interface: PlayerNames.interface,
                                            member: PlayerMethod.bookmark.name, arguments: [.string("red\u{1B}[31m\nline")])
        let tooLong = await podsd.pods("bookmark", String(repeating: "n", count: 1001))
        #expect(tooLong.status == 1 && tooLong.stderr.contains("at most 1000 characters"), "\(tooLong)")
        var listed = try Self.json(await podsd.pods("bookmarks", "--json"))
        #expect(listed.count == 22)
        let first = try #require(listed.first)
        #expect(first["episodeId"] as? Int == episode && first["note"] as? String == "great point")
        #expect(abs((first["position"] as? Double ?? 0) - 65.5) < 0.3 && first["cue"] as? String == "The great point.")
        #expect(listed.last?["note"] as? String == "red[31m line")
        let id = try #require(first["id"] as? Int)
        let markdown = await podsd.pods("bookmarks", String(episode), "--export", "md")
        #expect(markdown.stdout.hasPrefix("- [1:05](pods:episode/\(episode)?t=65) Marked episode: great point: «The great point.»\n"),
                "\(markdown)")
        // A note that is Markdown is text in the export: no live link (ADVERSARIAL-5, 8).
        let linked = await podsd.pods("bookmark", "--json", "see [x](file:///etc/passwd) <b>")
        let exported = await podsd.pods("bookmarks", String(episode), "--export", "md")
        #expect(exported.stdout.contains(#"see \[x\]\(file:///etc/passwd\) \<b\>"#), "\(exported)")
        let linkedID = try #require((try? JSONSerialization.jsonObject(with: Data(linked.stdout.utf8)) as? [String: Any])?["id"] as? Int)
        #expect(await podsd.pods("bookmarks", "--delete", String(linkedID)).status == 0)

        // Played from 5 s before it; the resume position stays where it was, played past or not.
        #expect(await podsd.pods("play", "--bookmark", String(id)).status == 0)
        try await waitFor(timeout: .seconds(10)) { (try? await podsd.client.status().state) == .playing }
        let position = try await podsd.client.property("Position").int64Value ?? 0
        #expect(abs(Double(position) / 1_000_000 - 60.5) < 1.5, "playing from \(Double(position) / 1_000_000)")
        try await Task.sleep(for: .milliseconds(2500))  // progress comes every second while playing
        #expect(await podsd.pods("stop").status == 0)
        try await Task.sleep(for: .milliseconds(300))
        let resumeAfter = try #require(await Self.savedPosition(podsd, episode))
        #expect(abs(resumeAfter - resumeBefore) < 0.01, "the resume position moved from \(resumeBefore) to \(resumeAfter)")

        // Deleted by id; the rest survive kill -9.
        #expect(await podsd.pods("bookmarks", "--delete", String(id)).status == 0)
        #expect(kill(podsd.processIdentifier, SIGKILL) == 0)
        _ = await podsd.waitForExit(timeout: .seconds(5))
        podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        listed = try Self.json(await podsd.pods("bookmarks", "--json"))
        #expect(listed.count == 21 && listed.first?["note"] as? String == "quick 1")
        let missing = await podsd.pods("play", "--bookmark", String(id))
        #expect(missing.status == 1 && missing.stderr.contains("no bookmark \(id)"), "\(missing)")
        #expect(podsd.isRunning)
    }

    /// The episode's saved resume position, as `pods episode` reads it from the library.
    static func savedPosition(_ podsd: PodsdProcess, _ episode: Int) async -> Double? {
        let result = await podsd.pods("episode", String(episode), "--json")
        let object = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
        return ((object?["episode"] as? [String: Any]) ?? object)?["position"] as? Double
    }

    private static func json(_ result: CommandResult) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result)")
    }
}
