import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// A feed full of terminal control sequences (OSC 52 clipboard writes, OSC 0
/// window titles, DCS, CSI in 7-bit and 8-bit form, C0 and C1 controls, bidi
/// overrides and isolates) in every field `pods` prints — titles, notes,
/// author, chapter titles, transcript lines, bookmarks — and not one of them
/// reaches standard output or standard error of any command (REVIEW-4, N5:
/// `pods find`, `pods transcript` and `pods show --transcript` printed them).
@Suite(.serialized, .timeLimit(.minutes(4))) struct TerminalTextTests {
    /// Every kind, as JSON escapes (the transcript and chapters are JSON).
    static let hostileJSON = #"a\u001b]52;c;ZWNobyBwd25lZA==\u0007b\u001b]0;title\u0007c\u001bP1$q\u001b\\d\u001b[2J\u001b[31me\u009b31mf\u009d0;t\u009cg\u202eh\u2066i\u0000j\u0008k\u007fl\u0085m"#
    /// What XML can carry of them (no C0 but tab and line breaks: the rest as references, which a feed may still send).
    static let hostileXML = "a&#x1b;]52;c;ZWNo&#x7;b\u{9B}31mc\u{9D}0;t\u{9C}d\u{202E}e\u{2066}f\u{85}g&#x1b;[2Jh"

    /// Whether `text` holds anything a terminal acts on (tab and line feed are text).
    static func controls(in text: String) -> [String] {
        text.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x09, 0x0A: false
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
        }.map { String(format: "U+%04X", $0.value) }
    }

    @Test func noCommandPrintsAControlSequence() async throws {
        let audio = try Fixtures.temporaryDirectory().appendingPathComponent("talk.mp3")
        let made = await Subprocess.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=330:duration=20", "-ac", "1",
                                                   "-y", audio.path], timeout: .seconds(60))
        #expect(made.status == 0)
        let server = try LoopbackHTTPServer(files: ["/talk.mp3": audio])
        defer { server.stop() }
        server.setFile("/talk.json", Data(#"{"version":"1.0.0","segments":[{"startTime":0,"endTime":9,"speaker":"s\#(Self.hostileJSON)","body":"heard \#(Self.hostileJSON)"},{"startTime":9,"endTime":18,"body":"later"}]}"#.utf8),
                       type: "application/json")
        server.setFile("/chapters.json", Data(#"{"version":"1.2.0","chapters":[{"startTime":0,"title":"c\#(Self.hostileJSON)"},{"startTime":10,"title":"two"}]}"#.utf8),
                       type: "application/json+chapters")
        server.setFile("/feed.xml", Data("""
            <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"
              xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
            <channel><title>Show \(Self.hostileXML)</title><itunes:author>By \(Self.hostileXML)</itunes:author>
            <description>About \(Self.hostileXML)</description>
            <item><title>Talk \(Self.hostileXML)</title><guid>t</guid><pubDate>02 Nov 2026 08:00:00 GMT</pubDate>
              <description><![CDATA[<p>Notes \(Self.hostileXML)</p><a href="https://example.com/\(Self.hostileXML)">link \(Self.hostileXML)</a>]]></description>
              <itunes:duration>20</itunes:duration>
              <enclosure url="\(server.url("/talk.mp3"))" type="audio/mpeg" length="160000"/>
              <podcast:chapters url="\(server.url("/chapters.json"))" type="application/json+chapters"/>
              <podcast:transcript url="\(server.url("/talk.json"))" type="application/json"/></item>
            </channel></rss>
            """.utf8))
        let podsd = try await PodsdProcess.start(extraArguments: ["--no-auto-next"])
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        let id = String(try #require(try await LibraryClient(podsd.client).episodesJSON().first?["id"] as? Int))
        #expect(await podsd.pods("play", id).status == 0)
        try await waitFor(timeout: .seconds(10)) { await podsd.pods("transcript").stdout.contains("heard") }
        #expect(await podsd.run(Fixtures.executable("pods"), ["bookmark", "note " + Self.hostileJSON.replacingOccurrences(of: #"\u001b"#, with: "\u{1B}")]).status == 0)
        #expect(await podsd.pods("pause").status == 0)

        for arguments in [["podcasts"], ["episodes"], ["episodes", "1"], ["show", id], ["show", "--transcript", id], ["podcast", "1"],
                          ["chapters"], ["transcript"], ["find", "heard"], ["find", "notes"], ["status"], ["queue"], ["bookmarks"],
                          ["bookmarks", "--export", "md"], ["stats"], ["stats", "--export", "csv"], ["playlists"], ["downloads"],
                          ["unsubscribe", "Show \u{1B}]0;x\u{7}"], ["config", "--podcast", "1"]] {
            let result = await podsd.run(Fixtures.executable("pods"), arguments)
            let found = Self.controls(in: result.stdout) + Self.controls(in: result.stderr)
            #expect(found.isEmpty, "pods \(arguments.joined(separator: " ")) printed \(Set(found).sorted()):\n\(result)")
        }
        // The words themselves are still there, only the controls are gone.
        #expect(await podsd.pods("find", "heard").stdout.contains("heard"))
        #expect(podsd.isRunning)
    }
}
