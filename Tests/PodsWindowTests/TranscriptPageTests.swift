import Foundation
import PodsTestSupport
import Testing

/// An episode's whole transcript in the real window, a line pressed to
/// play from where it is said.
@Suite(.timeLimit(.minutes(5))) struct TranscriptPageTests {
    @Test func theWholeTranscriptShowsAndALinePlaysFromThere() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        func stamp(_ seconds: Int) -> String { String(format: "00:00:%02d.000", seconds) }
        let vtt = "WEBVTT\n\n" + (1...20).map { "\(stamp(3 * ($0 - 1))) --> \(stamp(3 * $0))\nLine number \($0)\n" }.joined(separator: "\n")
        server.setFile("/talk.vtt", Data(vtt.utf8), type: "text/vtt")
        server.setFile("/feed.xml", Data("""
            <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>Talk Show</title>
            <item><title>Talked</title><guid>t</guid><pubDate>Mon, 02 Nov 2026 08:00:00 GMT</pubDate>
              <enclosure url="\(server.url("/a.mp3"))" type="audio/mpeg"/>
              <podcast:transcript url="\(server.url("/talk.vtt"))" type="text/vtt"/></item>
            </channel></rss>
            """.utf8))
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("push button", "^Open Talk Show$")
            try await driver.press("push button", "^Open Talk Show$")
            try await driver.wait("push button", "^About Talked$")
            try await driver.press("push button", "^About Talked$")
            try await driver.wait("push button", "^Read the transcript$", seconds: 5)
            try await driver.press("push button", "^Read the transcript$")
            try await driver.wait("push button", "^Play from here: 0:27  Line number 10$", seconds: 10)
            try await driver.press("push button", "^Play from here: 0:27  Line number 10$")
            try await waitFor(timeout: .seconds(5)) {
                let position = Double(await podsd.playerctl("position").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                return await podsd.playerctl("status").stdout.contains("Playing") && position >= 26.5 && position < 35
            }
            let page = try await driver.unnamed()
            #expect(page.unnamed == [] && page.seen >= 10, "\(page)")
            desktop.screenshot("transcript")
        }
    }
}
