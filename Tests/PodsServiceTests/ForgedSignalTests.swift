import Foundation
import PodsClient
import PodsDBus
import PodsTestSupport
import Testing

/// A signal that moves the player or the downloads counts only from the
/// owner of the name that sends it (REVIEW-4, N6): the stock system bus lets
/// every account send signals, and one sent to podsd's connection by name
/// reaches it whatever its match rules say. A second connection forges
/// each, sent straight to podsd with `dbus-send` as any account could; then
/// the real stand-in's own broadcast still works.
@Suite(.timeLimit(.minutes(4))) struct ForgedSignalTests {
    /// podsd's unique names on `bus` (a connection each for the sleep guard and the network monitor).
    static func uniqueNames(of podsd: PodsdProcess, on bus: PrivateBus) async throws -> [String] {
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let names = try await connection.call(destination: "org.freedesktop.DBus", path: DBusObjectPath(validLiteral: "/org/freedesktop/DBus"),
                                              interface: "org.freedesktop.DBus", member: "ListNames").first?.arrayValue?.compactMap(\.stringValue) ?? []
        var owned: [String] = []
        for name in names where name.hasPrefix(":") {
            if (try? await connection.processID(of: name)) == podsd.processIdentifier { owned.append(name) }
        }
        guard !owned.isEmpty else { throw TestSupportError("podsd is not on that bus") }
        return owned
    }

    /// `gdbus emit` of `signal` (interface.member) on `path` with GVariant-text `arguments`, to `destination` alone.
    static func forge(_ bus: PrivateBus, to destination: String, _ path: String, _ signal: String, _ arguments: [String]) async {
        let sent = await Subprocess.run("/usr/bin/gdbus", ["emit", "--address", bus.address, "--dest", destination,
                                                           "--object-path", path, "--signal", signal] + arguments, timeout: .seconds(10))
        #expect(sent.status == 0, "\(sent)")
    }

    @Test func aForgedPrepareForSleepPausesNothing() async throws {
        let logind = try await LogindServer.start()
        let podsd = try await PodsdProcess.start(environment: logind.environment)
        try await waitFor(timeout: .seconds(5)) { logind.held.count == 1 }
        #expect(await podsd.pods("subscribe", Fixtures.data("sample-podcast.xml").absoluteString).status == 0)
        #expect(await podsd.pods("play", "1").status == 0)
        try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(10)) { $0 > 1 }
        for name in try await Self.uniqueNames(of: podsd, on: logind.bus) {
            await Self.forge(logind.bus, to: name, "/org/freedesktop/login1", "org.freedesktop.login1.Manager.PrepareForSleep", ["true"])
        }
        try await Task.sleep(for: .seconds(1))
        #expect(await podsd.playerctl("status").stdout.trimmed == "Playing", "a forged sleep paused podsd")
        #expect(logind.held.count == 1, "a forged sleep let the lock go")
        // logind's own broadcast pauses, as before.
        try logind.prepareForSleep(true)
        try await waitFor(timeout: .seconds(5)) { await podsd.playerctl("status").stdout.trimmed == "Paused" }
        #expect(await podsd.signal(SIGTERM)?.status == 0)
    }

    @Test func aForgedMeteredChangeMovesNoDownload() async throws {
        let fixture = try await EpisodeServer(seconds: 30)
        let networkManager = try await NetworkManagerServer.start(metered: 3)
        let podsd = try await PodsdProcess.start(environment: networkManager.environment)
        let episode = try #require(try await fixture.subscribe(podsd)[.mp3])
        #expect(await podsd.pods("download", String(episode)).stdout.contains("waits for a network that is not metered"))
        // "Not metered" (4), from a client that is not NetworkManager: the download still waits.
        for name in try await Self.uniqueNames(of: podsd, on: networkManager.bus) {
            await Self.forge(networkManager.bus, to: name, "/org/freedesktop/NetworkManager", "org.freedesktop.DBus.Properties.PropertiesChanged",
                             ["'org.freedesktop.NetworkManager'", "{'Metered': <uint32 4>}", "@as []"])
        }
        try await Task.sleep(for: .seconds(2))
        #expect(try await downloadState(podsd, episode) == "metered", "a forged signal let the download run")
        try networkManager.setMetered(4)
        try await waitFor(timeout: .seconds(10)) { (try? await downloadState(podsd, episode)) == "downloaded" }
    }

    /// A flapping network is followed, not logged at every flap (ADVERSARIAL-5, 9: 100 lines a second).
    @Test func aFlappingNetworkLogsEachStateOnceAMinute() async throws {
        let networkManager = try await NetworkManagerServer.start(metered: 4)
        let podsd = try await PodsdProcess.start(environment: networkManager.environment)
        try await Task.sleep(for: .milliseconds(500))
        for index in 0..<200 { try networkManager.setMetered(index % 2 == 0 ? 1 : 4) }
        try networkManager.setMetered(1)
        try await Task.sleep(for: .seconds(1))
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        let log = podsd.errorOutput()
        let lines = log.split(separator: "\n").filter { $0.contains("the network is") }
        #expect(lines.count >= 1 && lines.count <= 2, "\(lines.count) lines: \(lines.prefix(5))")
    }
}
