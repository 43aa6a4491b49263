import Foundation
import PodsClient
import PodsDBus
import PodsTestSupport
import Testing

/// New episodes found by a background refresh are announced through a
/// notification server on the bus, with the artwork and a Play action.
@Suite(.timeLimit(.minutes(10))) struct NotificationTests {
    static func feed(_ title: String, episodes: [String], server: LoopbackHTTPServer) -> Data {
        var xml = #"<?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>"#
        xml += "<title>\(title)</title><itunes:image href=\"\(server.url("/art.png"))\"/>"
        for (index, episode) in episodes.enumerated() {
            xml += "<item><title>\(episode)</title><guid>\(title)-\(episode)</guid>"
            xml += "<pubDate>\(String(format: "%02d", index + 1)) Nov 2026 08:00:00 GMT</pubDate>"
            xml += #"<enclosure url="\#(server.url("/a.mp3"))" type="audio/mpeg"/></item>"#
        }
        return Data((xml + "</channel></rss>").utf8)
    }

    @Test func newEpisodesAreAnnouncedAndPlayIsOneClick() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/art.png", Data([0x89] + Array("PNG artwork".utf8)), type: "image/png")
        let shows = ["One", "Two", "Three", "Four", "Five"]
        for show in shows { server.setFile("/\(show).xml", Self.feed(show, episodes: ["\(show) old"], server: server)) }
        let bus = try await PrivateBus.start()
        let notifications = try await NotificationServer.start(on: bus)
        let podsd = try await PodsdProcess.start(extraArguments: ["--refresh-interval", "1s"], bus: bus)
        for show in shows { #expect(await podsd.pods("subscribe", server.url("/\(show).xml")).status == 0) }

        // One podcast has a new episode: one notification, its artwork, a Play action.
        // Its title holds markup, which the body escapes (REVIEW-4, N24).
        server.setFile("/One.xml", Self.feed("One", episodes: ["One old", "One fresh &lt;a href=x&gt;&amp;"], server: server))
        try await waitFor(timeout: .seconds(10)) { !notifications.notifications.isEmpty }
        let shown = try #require(notifications.notifications.first)
        #expect(shown.summary == "One" && shown.body == "New: One fresh &lt;a href=x&gt;&amp;" && shown.appName == "Pods", "\(shown.body)")
        #expect(shown.actions.contains("play") && shown.hints["desktop-entry"] == .string("pods"))
        #expect(shown.icon.hasPrefix("file://") && shown.hints["image-path"]?.stringValue == shown.icon, "\(shown.icon)")
        try notifications.click(shown.id, action: "play")
        try await waitFor { (try? await podsd.client.status().title) == "One fresh <a href=x>&" }
        #expect(notifications.notifications.count == 1)
    }

    /// A click that only another client sent (not the notification server) plays nothing.
    @Test func aClickSpoofedByAnotherClientPlaysNothing() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/art.png", Data([0x89] + Array("PNG artwork".utf8)), type: "image/png")
        server.setFile("/One.xml", Self.feed("One", episodes: ["One old"], server: server))
        let bus = try await PrivateBus.start()
        let notifications = try await NotificationServer.start(on: bus)
        let podsd = try await PodsdProcess.start(bus: bus)
        #expect(await podsd.pods("subscribe", server.url("/One.xml")).status == 0)
        server.setFile("/One.xml", Self.feed("One", episodes: ["One old", "One fresh"], server: server))
        #expect(await podsd.pods("refresh").status == 0)
        try await waitFor(timeout: .seconds(10)) { !notifications.notifications.isEmpty }
        let shown = try #require(notifications.notifications.first)
        for action in ["play", "default"] {
            try podsd.connection.emitSignal(path: DBusObjectPath(validLiteral: "/org/freedesktop/Notifications"),
                                            interface: "org.freedesktop.Notifications", member: "ActionInvoked",
                                            arguments: [.uint32(shown.id), .string(action)])
        }
        // Taken, a click plays within milliseconds; half a second of nothing is a refusal.
        try await Task.sleep(for: .milliseconds(500))
        #expect((try? await podsd.client.status().title) != "One fresh")
        try notifications.click(shown.id, action: "play")
        try await waitFor { (try? await podsd.client.status().title) == "One fresh" }
    }

    @Test func manyPodcastsAtOnceAreOneSummaryAndNotifyFalseIsQuiet() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/art.png", Data([0x89] + Array("PNG artwork".utf8)), type: "image/png")
        let shows = ["Two", "Three", "Four", "Five"]
        for show in shows { server.setFile("/\(show).xml", Self.feed(show, episodes: ["\(show) old"], server: server)) }
        let bus = try await PrivateBus.start()
        let notifications = try await NotificationServer.start(on: bus)
        let podsd = try await PodsdProcess.start(bus: bus)  // no background refresh: `pods refresh` finds them
        for show in shows { #expect(await podsd.pods("subscribe", server.url("/\(show).xml")).status == 0) }
        for show in shows { server.setFile("/\(show).xml", Self.feed(show, episodes: ["\(show) old", "\(show) new"], server: server)) }
        #expect(await podsd.pods("refresh").status == 0)
        try await waitFor(timeout: .seconds(10)) { !notifications.notifications.isEmpty }
        try await Task.sleep(for: .milliseconds(500))
        #expect(notifications.notifications.map(\.summary) == ["4 new episodes in 4 podcasts"])
        try notifications.click(1, action: "default")
        try await waitFor { (try? await podsd.client.status().title)?.hasSuffix(" new") == true }

        #expect(await podsd.pods("config", "notify", "false").status == 0)
        server.setFile("/Two.xml", Self.feed("Two", episodes: ["Two old", "Two new", "Two newer"], server: server))
        #expect(await podsd.pods("refresh").status == 0)
        try await Task.sleep(for: .seconds(1))
        #expect(notifications.notifications.count == 1)
    }

    @Test func withoutANotificationServerNothingFails() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/art.png", Data([0x89] + Array("PNG artwork".utf8)), type: "image/png")
        server.setFile("/One.xml", Self.feed("One", episodes: ["One old"], server: server))
        let podsd = try await PodsdProcess.start(extraArguments: ["--refresh-interval", "1s"])
        #expect(await podsd.pods("subscribe", server.url("/One.xml")).status == 0)
        for round in 1...2 {
            server.setFile("/One.xml", Self.feed("One", episodes: ["One old"] + (1...round).map { "One \($0)" }, server: server))
            try await waitFor(timeout: .seconds(10)) {
                ((try? await LibraryClient(podsd.client).episodesJSON()) ?? []).contains { $0["title"] as? String == "One \(round)" }
            }
        }
        try await Task.sleep(for: .seconds(1))
        #expect(podsd.isRunning)
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        let log = podsd.errorOutput()
        #expect(log.components(separatedBy: "no desktop notifications").count == 2, "logged once: \(log)")
    }
}
