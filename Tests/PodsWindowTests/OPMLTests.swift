import Foundation
import PodsTestSupport
import Testing

/// The subscriptions written as OPML where the listener chooses, through
/// GTK's own file chooser (no portal outside a sandbox), and read back by
/// `pods`' own parser.
@Suite(.timeLimit(.minutes(5))) struct OPMLTests {
    @Test func theSubscriptionsExportThroughTheFileChooser() async throws {
        let (podsd, server) = try await WindowTests.podsdWithAShow()
        defer { server.stop() }
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        try await DesktopSession.with(podsd, environment: ["HOME": home.path]) { desktop in
            let driver = desktop.driver
            try await driver.wait("list item", "^Window Show")
            try await driver.press("push button", "^Export the subscriptions as an OPML file$")
            // GTK 4.8 names the chooser's own buttons twice over ("Export Export").
            try await driver.wait("push button", "^Export( Export)?$", seconds: 5)
            desktop.screenshot("export-chooser")
            try await driver.press("push button", "^Export( Export)?$")
            let file = home.appendingPathComponent("Podcasts.opml")
            try await waitFor(timeout: .seconds(5)) { FileManager.default.fileExists(atPath: file.path) }
            let opml = try String(contentsOf: file, encoding: .utf8)
            #expect(opml.contains("<opml") && opml.contains(server.url("/feed.xml")) && opml.contains("Window Show"), "\(opml)")
            try await driver.wait("label", "^Exported the subscriptions to ", seconds: 5)
        }
    }

    @Test func anOPMLFileChosenImportsItsFeeds() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/one.xml", sampleFeed([("a", "One first", 1, server.url("/a.mp3"))], title: "Imported One"))
        server.setFile("/two.xml", sampleFeed([("b", "Two first", 2, server.url("/a.mp3"))], title: "Imported Two"))
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("import.opml")
        try """
            <?xml version="1.0"?><opml version="2.0"><head><title>Mine</title></head><body>
            <outline type="rss" text="One" xmlUrl="\(server.url("/one.xml"))"/>
            <outline type="rss" text="Two" xmlUrl="\(server.url("/two.xml"))"/>
            </body></opml>
            """.write(to: file, atomically: true, encoding: .utf8)
        let podsd = try await PodsdProcess.start()
        try await DesktopSession.with(podsd, environment: ["HOME": home.path]) { desktop in
            let driver = desktop.driver
            try await driver.wait("push button", "^Import subscriptions from an OPML file$")
            try await driver.press("push button", "^Import subscriptions from an OPML file$")
            try await driver.wait("push button", "^Import( Import)?$", seconds: 5)
            // As a person does in GTK's chooser: a path typed from its "/", then Enter.
            try await driver.send("type \(file.path)")
            try await Task.sleep(for: .milliseconds(300))
            try await driver.send("key Return")
            try await waitFor(timeout: .seconds(10)) {
                let listed = await podsd.pods("podcasts").stdout
                return listed.contains("Imported One") && listed.contains("Imported Two")
            }
            try await driver.wait("list item", "^Imported Two", seconds: 5)
            try await driver.wait("label", "^Subscribed to 2 of 2 feeds$", seconds: 5)
        }
    }
}
