import Foundation
import PodsTestSupport
import Testing

/// podsd plays with no window: without an inhibitor, GNOME's and KDE's
/// automatic suspend cut the episode. While Playing it holds one with the
/// suspend flag (the desktop portal's, else GNOME's session manager's,
/// else PowerManagement's), released within a second of every way playing
/// ends. Stand-ins: the real services need a whole desktop session.
@Suite(.timeLimit(.minutes(10))) struct SuspendInhibitTests {
    static let second = Duration.seconds(1)

    func start(_ kind: InhibitServer.Kind) async throws -> (PodsdProcess, InhibitServer) {
        let bus = try await PrivateBus.start()
        let server = try await InhibitServer.start(kind, on: bus)
        let podsd = try await PodsdProcess.start(bus: bus)
        #expect(await podsd.pods("subscribe", Fixtures.data("sample-podcast.xml").absoluteString).status == 0)
        return (podsd, server)
    }

    @Test func thePortalsInhibitorIsHeldExactlyWhilePlaying() async throws {
        let (podsd, server) = try await start(.portal)
        #expect(server.all.isEmpty)
        #expect(await podsd.pods("play", "1").status == 0)
        try await waitFor(timeout: Self.second) { server.active.count == 1 }
        let held = try #require(server.active.first)
        #expect(held.flags == 4, "the suspend flag only (not idle: the screen may still blank)")
        #expect(held.reason.contains("Playing") && held.reason.contains("Pods"), "\(held.reason)")

        for (stop, resume) in [(["pause"], ["play"]), (["stop"], ["play"])] {
            #expect(await podsd.playerctl(stop).status == 0)
            try await waitFor(timeout: Self.second) { server.active.isEmpty }
            #expect(await podsd.playerctl(resume).status == 0)
            try await waitFor(timeout: Self.second) { server.active.count == 1 }
        }
        // The sleep timer's pause releases it too.
        #expect(await podsd.pods("sleep", "2s").status == 0)
        try await waitFor(timeout: .seconds(8)) { await podsd.playerctl("status").stdout.trimmed == "Paused" }
        try await waitFor(timeout: Self.second) { server.active.isEmpty }
        // And SIGTERM (a logout): released before podsd exits.
        #expect(await podsd.playerctl("play").status == 0)
        try await waitFor(timeout: Self.second) { server.active.count == 1 }
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        #expect(server.active.isEmpty, "still held after podsd ended")
        #expect(server.all.count == 4)
    }

    @Test func quitReleasesIt() async throws {
        let (podsd, server) = try await start(.portal)
        #expect(await podsd.pods("play", "1").status == 0)
        try await waitFor(timeout: Self.second) { server.active.count == 1 }
        _ = await podsd.run("gdbus", ["call", "--session", "--dest", "org.mpris.MediaPlayer2.pods", "--object-path",
                                      "/org/mpris/MediaPlayer2", "--method", "org.mpris.MediaPlayer2.Quit"])
        _ = await podsd.waitForExit(timeout: .seconds(10))
        #expect(server.active.isEmpty)
    }

    @Test(arguments: [InhibitServer.Kind.gnome, .powerManagement])
    func withoutAPortalTheDesktopsOwnIsUsed(_ kind: InhibitServer.Kind) async throws {
        let (podsd, server) = try await start(kind)
        #expect(await podsd.pods("play", "1").status == 0)
        try await waitFor(timeout: Self.second) { server.active.count == 1 }
        let held = try #require(server.active.first)
        if kind == .gnome { #expect(held.flags == 4 && held.application == "org.pods.Pods") }
        #expect(held.reason.hasPrefix("Playing"))
        #expect(await podsd.playerctl("pause").status == 0)
        try await waitFor(timeout: Self.second) { server.active.isEmpty }
    }

    /// With nothing to ask, playing goes on, and podsd says so once.
    @Test func withNothingToAskPlayingGoesOn() async throws {
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", Fixtures.data("sample-podcast.xml").absoluteString).status == 0)
        for _ in 0..<2 {
            #expect(await podsd.pods("play", "1").status == 0)
            #expect(await podsd.playerctl("pause").status == 0)
        }
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        #expect(podsd.errorOutput().components(separatedBy: "nothing keeps the machine awake").count == 2, "\(podsd.errorOutput())")
    }
}
