import Foundation
import PodsTestSupport
import Testing

/// A podcast's page in the real window: its artwork (with alternative
/// text), people, funding link and podroll, the recommended show
/// subscribed to with one press.
@Suite(.timeLimit(.minutes(5))) struct ShowHeaderTests {
    @Test func aPodcastsPageShowsItsArtworkPeopleFundingAndPodroll() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/art.png", try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("data/sample-artwork.png")), type: "image/png")
        server.setFile("/other.xml", sampleFeed([("o", "Other first", 3, server.url("/a.mp3"))], title: "Other Show"))
        server.setFile("/feed.xml", Data("""
            <?xml version="1.0"?>
            <rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
            <channel><title>Two Show</title><itunes:image href="\(server.url("/art.png"))"/>
            <podcast:person role="host">Ann Host</podcast:person>
            <podcast:funding url="https://two.example/support">Support us</podcast:funding>
            <podcast:funding url="javascript:alert(1)">A trap</podcast:funding>
            <podcast:podroll><podcast:remoteItem feedGuid="aaa" feedUrl="\(server.url("/other.xml"))" title="Other Show"/></podcast:podroll>
            <item><title>One</title><guid>one</guid><pubDate>Mon, 02 Nov 2026 08:00:00 GMT</pubDate>
              <enclosure url="\(server.url("/a.mp3"))" type="audio/mpeg"/></item>
            </channel></rss>
            """.utf8))
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("push button", "^Open Two Show$")
            try await driver.press("push button", "^Open Two Show$")
            try await driver.wait("label", "^Ann Host \\(host\\)$")
            try await driver.wait("link", "^Support us$")
            #expect(try await driver.send("names link").names == ["Support us"])
            try await driver.wait("image", "^Artwork of Two Show$", seconds: 5)
            let page = try await driver.unnamed()
            #expect(page.unnamed == [] && page.seen >= 8, "\(page)")
            desktop.screenshot("podcast-page")
            try await driver.press("push button", "^Subscribe to Other Show, which this show recommends$")
            try await waitFor(timeout: .seconds(10)) { await podsd.pods("podcasts").stdout.contains("Other Show") }
        }
    }
}
