import Foundation
import PodsTestSupport
import Testing

/// An episode's page in the real window against the real podsd: its notes
/// as text with only their web links, a link opened by the desktop's
/// handler, chapters, soundbites and people, and each of its actions
/// checked on podsd.
@Suite(.timeLimit(.minutes(5))) struct EpisodePageTests {
    static func feed(_ server: LoopbackHTTPServer) -> Data {
        let hostileNotes = String(repeating: "<b>unclosed ", count: 10_000)
        return Data("""
            <?xml version="1.0"?>
            <rss version="2.0" xmlns:psc="http://podlove.org/simple-chapters" xmlns:podcast="https://podcastindex.org/namespace/1.0">
            <channel><title>Notes Show</title>
            <item><title>Chaptered</title><guid>chaptered</guid><pubDate>Mon, 02 Nov 2026 08:00:00 GMT</pubDate>
              <enclosure url="\(server.url("/a.mp3"))" type="audio/mpeg" length="1440000"/>
              <description><![CDATA[<p>Hello from the notes.</p><p>See <a href="https://example.com/show">the show site</a>,
                <a href="javascript:alert(1)">a trap</a> and <a href="file:///etc/passwd">a file</a>.</p>
                <img src="\(server.url("/pixel.png"))">]]></description>
              <psc:chapters version="1.2"><psc:chapter start="0" title="Welcome"/><psc:chapter start="20" title="The middle"/>
                <psc:chapter start="40" title="Goodbye"/></psc:chapters>
              <podcast:person role="guest">Ada Guest</podcast:person>
              <podcast:soundbite startTime="30" duration="10">The best bit</podcast:soundbite></item>
            <item><title>Hostile \(String(repeating: "\u{202E}long title ", count: 20_000))</title><guid>hostile</guid>
              <pubDate>Sun, 01 Nov 2026 08:00:00 GMT</pubDate>
              <enclosure url="\(server.url("/a.mp3"))" type="audio/mpeg"/>
              <description><![CDATA[\(hostileNotes)]]></description></item>
            </channel></rss>
            """.utf8)
    }

    /// A desktop handler for web links, as a browser registers one: the
    /// addresses it was asked to open are written to `opened`.
    static func linkHandler(in folder: URL) throws -> (environment: [String: String], opened: URL) {
        let opened = folder.appendingPathComponent("opened.txt")
        let script = folder.appendingPathComponent("browser.sh")
        try "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(opened.path)'\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let applications = folder.appendingPathComponent("data/applications")
        let config = folder.appendingPathComponent("config")
        for directory in [applications, config] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        try """
            [Desktop Entry]
            Type=Application
            Name=Test Browser
            Exec=\(script.path) %u
            MimeType=x-scheme-handler/http;x-scheme-handler/https;x-scheme-handler/mailto;
            """.write(to: applications.appendingPathComponent("pods-test-browser.desktop"), atomically: true, encoding: .utf8)
        try """
            [Default Applications]
            x-scheme-handler/http=pods-test-browser.desktop
            x-scheme-handler/https=pods-test-browser.desktop
            x-scheme-handler/mailto=pods-test-browser.desktop
            """.write(to: config.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        return (["XDG_DATA_HOME": folder.appendingPathComponent("data").path, "XDG_CONFIG_HOME": config.path], opened)
    }

    static func episode(_ podsd: PodsdProcess, titled title: String) async throws -> [String: Any] {
        let listed = await podsd.pods("episodes", "--json")
        let episodes = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed)")
        return try #require(episodes.first { ($0["title"] as? String) == title })
    }

    @Test func anEpisodesPageShowsItsNotesLinksAndChaptersAndEachActionReachesPodsd() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/feed.xml", Self.feed(server))
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let handler = try Self.linkHandler(in: folder)
        try await DesktopSession.with(podsd, environment: handler.environment) { desktop in
            let driver = desktop.driver
            try await driver.wait("push button", "^Open Notes Show$")
            try await driver.press("push button", "^Open Notes Show$")
            try await driver.wait("push button", "^About Chaptered$")
            try await driver.press("push button", "^About Chaptered$")
            // The notes as text; of their three links only the web one is offered.
            try await driver.wait("text", "^Show notes$")
            #expect(try await driver.text("text", "^Show notes$") == "Hello from the notes.\n\nSee the show site, a trap and a file.")
            try await driver.wait("link", "^the show site$")
            #expect(try await driver.send("names link").names == ["the show site"])
            try await driver.wait("push button", "^Chapter 2, The middle, at 0:20$")
            try await driver.wait("push button", "^Play the soundbite The best bit, at 0:30$")
            try await driver.wait("label", "^Ada Guest \\(guest\\)$")
            try await driver.wait("label", "^MP3 · 1.4 MB · 127.0.0.1 · the one that plays$")
            let page = try await driver.unnamed()
            #expect(page.unnamed == [] && page.seen >= 10, "\(page)")
            desktop.screenshot("episode-page")

            // The link opens in the desktop's handler; the notes' picture was never fetched.
            try await driver.press("link", "^the show site$")
            try await waitFor(timeout: .seconds(5)) {
                (try? String(contentsOf: handler.opened, encoding: .utf8))?.contains("https://example.com/show") == true
            }
            #expect(server.requests(for: "/pixel.png") == 0)

            // Add to Up Next and Mark as played reach podsd; the page follows the mark.
            try await driver.press("push button", "^Add to Up Next$")
            try await waitFor(timeout: .seconds(5)) { await podsd.pods("queue").stdout.contains("Chaptered") }
            try await driver.press("push button", "^Mark as played$")
            try await driver.wait("push button", "^Mark as unplayed$", seconds: 5)
            #expect(try await Self.episode(podsd, titled: "Chaptered")["completed"] as? Bool == true)

            // A chapter pressed plays the episode from there; then a bookmark marks the moment.
            try await driver.press("push button", "^Chapter 2, The middle, at 0:20$")
            try await waitFor(timeout: .seconds(5)) {
                let position = Double(await podsd.playerctl("position").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                return await podsd.playerctl("status").stdout.contains("Playing") && position >= 19.5 && position < 30
            }
            try await driver.press("push button", "^Bookmark this moment$")
            try await waitFor(timeout: .seconds(5)) { await podsd.pods("bookmarks").stdout.contains("Chaptered") }

            // Notes of 10,000 unclosed tags under a 240,000-character title with bidi overrides:
            // the page opens at once, its title shown without them.
            try await driver.press("push button", "^Back to the podcast$")
            try await driver.wait("push button", "^About Hostile long title")
            try await driver.press("push button", "^About Hostile long title")
            let opened = ContinuousClock.now
            try await driver.wait("label", "^Notes Show · 2026-11-01$", seconds: 5)
            #expect(ContinuousClock.now - opened < .seconds(2), "the hostile page took \(ContinuousClock.now - opened)")
            let notes = try await driver.text("text", "^Show notes$")
            #expect(notes.hasPrefix("unclosed unclosed") && notes.count <= 100_001, "\(notes.count) characters")
            let titles = try await driver.send("names label").names.filter { $0.hasPrefix("Hostile") }
            #expect(!titles.isEmpty && titles.allSatisfy { !$0.contains("\u{202E}") && $0.count <= 20_001 }, "\(titles.map(\.count))")
            #expect(try await driver.send("names label").ok, "the window stopped answering")
            // Laid out and shown: one paragraph of 100,000 characters once showed nothing at all.
            let size = try await driver.send("size text ^Show\\snotes$")
            #expect((size.fields["height"] as? Int ?? 0) > 100, "the notes are \(size.fields) on screen")
            desktop.screenshot("hostile-page")
        }
    }
}
