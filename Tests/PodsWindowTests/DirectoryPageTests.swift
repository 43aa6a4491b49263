import Foundation
import PodsTestSupport
import Testing

/// The directories searched from the podcasts page (a loopback stand-in
/// for iTunes' search answering as iTunes does) and a show subscribed to
/// from what they found.
@Suite(.timeLimit(.minutes(5))) struct DirectoryPageTests {
    @Test func wordsSearchTheDirectoriesAndAResultSubscribes() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/found.xml", sampleFeed([("f1", "Found one", 1, server.url("/a.mp3"))], title: "Found Show"))
        ITunesStandIn.serve(on: server, term: "found it", show: "Found Show", artist: "Finder", feedURL: server.url("/found.xml"))
        let podsd = try await PodsdProcess.start(directory: try ITunesStandIn.dataDirectory(searching: server))
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("text", "^Feed address or words$")
            try await driver.set("text", "^Feed address or words$", to: "found it")
            try await driver.press("push button", "^Search the directories$")
            try await driver.wait("list item", "^Found Show, Finder", seconds: 10)
            let found = try await driver.unnamed()
            #expect(found.unnamed == [] && found.seen >= 6, "\(found)")
            try await driver.press("push button", "^Subscribe to Found Show$")
            try await waitFor(timeout: .seconds(10)) { await podsd.pods("podcasts").stdout.contains("Found Show") }
            try await driver.press("push button", "^Back to podcasts$")
            try await driver.wait("list item", "^Found Show, ", seconds: 5)
        }
    }
}
