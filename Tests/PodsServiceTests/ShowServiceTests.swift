import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// `pods show`: an episode's page, and its transcript fetched once.
@Suite(.timeLimit(.minutes(10))) struct ShowServiceTests {
    @Test func anEpisodesPageWithLinksChaptersPeopleAndATranscript() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/t.srt", Data("1\n00:00:01,000 --> 00:00:03,000\nAnn: Hello and welcome.\n\n2\n00:01:05,000 --> 00:01:07,000\nBye.\n".utf8),
                       type: "application/x-subrip")
        server.setFile("/t.pdf", Data([0x25, 0x50, 0x44, 0x46, 0x2D, 0x31, 0, 0, 0]), type: "application/pdf")
        let words = (1...40).map { "word\($0)" }.joined(separator: " ")
        func item(_ guid: String, _ title: String, _ day: Int, transcript: String) -> String {
            """
            <item><title>\(title)</title><guid>\(guid)</guid><pubDate>0\(day) Nov 2026 08:00:00 GMT</pubDate>
              <itunes:duration>90</itunes:duration>
              <description><![CDATA[<p>First paragraph \(words).</p><p>See <a href="https://example.com/notes">the notes</a>.</p>]]></description>
              <enclosure url="\(server.url("/a.mp3"))" type="audio/mpeg" length="720000"/>
              <podcast:transcript url="\(server.url(transcript))" type="application/srt"/>
              <podcast:person role="host">Ann Example</podcast:person>
              <psc:chapters version="1.2"><psc:chapter start="0" title="Opening"/><psc:chapter start="1:00" title="Closing"/></psc:chapters>
            </item>
            """
        }
        server.setFile("/feed.xml", Data("""
            <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
              xmlns:podcast="https://podcastindex.org/namespace/1.0" xmlns:psc="http://podlove.org/simple-chapters">
            <channel><title>Show Show</title>
            \(item("a", "With transcript", 2, transcript: "/t.srt"))
            \(item("b", "Broken transcript", 3, transcript: "/t.pdf"))
            \(item("c", "Missing transcript", 4, transcript: "/missing.vtt"))
            </channel></rss>
            """.utf8))
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        let episodes = try await LibraryClient(podsd.client).episodesJSON()
        func id(_ title: String) -> String { String(episodes.first { $0["title"] as? String == title }?["id"] as? Int ?? 0) }

        let page = await podsd.pods("show", id("With transcript"))
        #expect(page.status == 0, "\(page)")
        let lines = page.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "With transcript")
        #expect(lines[1] == "Show Show · 2026-11-02 · 1:30 · unplayed")
        #expect(lines.allSatisfy { $0.count <= 78 }, "wrapped")
        #expect(page.stdout.contains("First paragraph word1") && page.stdout.contains("\n\nSee the notes."))
        #expect(page.stdout.contains("Links\n  [1] the notes  https://example.com/notes"))
        #expect(page.stdout.contains("Chapters\n    1  0:00  Opening\n    2  1:00  Closing"))
        #expect(page.stdout.contains("People\n  Ann Example (host)"))
        #expect(page.stdout.contains("Audio  \(server.url("/a.mp3"))  (audio/mpeg, 720 KB)"))
        #expect(page.stdout.contains("(pods show \(id("With transcript")) --transcript)"))

        let withTranscript = await podsd.pods("show", id("With transcript"), "--transcript")
        #expect(withTranscript.stdout.hasSuffix("Transcript\n  [0:01] Ann: Hello and welcome.\n  [1:05] Bye.\n"), "\(withTranscript)")
        let json = try #require(try JSONSerialization.jsonObject(
            with: Data(await podsd.pods("show", id("With transcript"), "--transcript", "--json").stdout.utf8)) as? [String: Any])
        #expect(Set(json.keys) == ["episode", "links", "chapters", "transcript"])
        #expect((json["links"] as? [[String: Any]])?.first?["url"] as? String == "https://example.com/notes")
        #expect((json["chapters"] as? [[String: Any]])?.count == 2)
        let cues = try #require(json["transcript"] as? [[String: Any]])
        #expect(cues.first?["start"] as? Double == 1 && cues.first?["speaker"] as? String == "Ann" && cues.first?["end"] as? Double == 3)
        #expect(server.requests(for: "/t.srt") == 1, "fetched once, then kept")

        // A transcript Pods cannot read, or cannot fetch: one line, the page itself still works.
        for (title, message) in [("Broken transcript", "cannot be read: the transcript is not text"), ("Missing transcript", "404")] {
            let result = await podsd.run(Fixtures.executable("pods"), ["show", id(title), "--transcript"])
            #expect(result.status == 1 && result.stderr.contains(message) && result.stderr.split(separator: "\n").count == 1, "\(result)")
            #expect(await podsd.pods("show", id(title)).status == 0)
        }
        #expect(podsd.isRunning)
    }
}
