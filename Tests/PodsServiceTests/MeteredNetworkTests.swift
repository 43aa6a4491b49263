import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// `episode`'s download state, as `pods downloads --json` says it.
func downloadState(_ podsd: PodsdProcess, _ episode: Int64) async throws -> String? {
    let downloads = try JSONSerialization.jsonObject(with: Data(await podsd.pods("downloads", "--json").stdout.utf8)) as? [[String: Any]]
    return downloads?.first { ($0["episodeId"] as? Int).map(Int64.init) == episode }?["state"] as? String
}

/// On a metered network (a phone's hotspot) downloads wait, shown as such,
/// while refreshes still run; they go on once it is not. The desktop
/// portal's NetworkMonitor is a stand-in (the real one needs its backends).
@Suite(.timeLimit(.minutes(10))) struct MeteredNetworkTests {

    @Test func downloadsWaitOnAMeteredNetworkAndGoOnWhenItIsNot() async throws {
        let fixture = try await EpisodeServer()
        let path = EpisodeServer.path(.ogg)
        fixture.server.setRate(path, bytesPerSecond: 200_000)
        let bus = try await PrivateBus.start()
        let network = try await NetworkMonitorServer.start(on: bus, metered: true)
        let podsd = try await PodsdProcess.start(bus: bus)
        let episode = try #require(try await fixture.subscribe(podsd)[.ogg])

        // Asked for on the hotspot: it waits, says why, and fetches nothing.
        let asked = await podsd.pods("download", String(episode))
        #expect(asked.status == 0 && asked.stdout.contains("waits for a network that is not metered"), "\(asked)")
        #expect(try await downloadState(podsd, episode) == "metered")
        try await Task.sleep(for: .seconds(1))
        #expect(fixture.server.bytesSent(for: path) == 0)
        // Refreshes still run.
        let refreshed = try await LibraryClient(podsd.client).refreshJSON()
        #expect(refreshed.count == 1 && refreshed.allSatisfy { $0["error"] is NSNull }, "\(refreshed)")

        // Off the hotspot: it runs.
        try network.setMetered(false)
        try await waitFor(timeout: .seconds(5)) { (try? await downloadState(podsd, episode)) == "downloading" }
        try await waitFor(timeout: .seconds(5)) { fixture.server.bytesSent(for: path) > 300_000 }

        // Back on it, mid-download: the download stops where it is and waits.
        try network.setMetered(true)
        try await waitFor(timeout: .seconds(5)) { (try? await downloadState(podsd, episode)) == "metered" }
        try await Task.sleep(for: .seconds(1.5))  // what was in flight lands
        let stoppedAt = fixture.server.bytesSent(for: path)
        try await Task.sleep(for: .seconds(2))
        #expect(fixture.server.bytesSent(for: path) - stoppedAt < 100_000, "still fetching on the metered network")

        // And finishes once the network is not metered, fetching only what it lacked.
        fixture.server.setRate(path, bytesPerSecond: nil)
        try network.setMetered(false)
        try await waitFor(timeout: .seconds(20)) { (try? await downloadState(podsd, episode)) == "downloaded" }
        let original = try #require(fixture.files[.ogg])
        #expect(fixture.server.bytesSent(for: path) - original.count < 600_000, "fetched again what it had")
    }

    /// A download that is starting (the server has not answered its first
    /// request yet) when the network turns metered waits, as one under way
    /// does (REVIEW-4, N7: it ran to its end on the metered network).
    @Test func aDownloadStartingAsTheNetworkTurnsMeteredWaits() async throws {
        let fixture = try await EpisodeServer()
        let path = EpisodeServer.path(.ogg)
        let bus = try await PrivateBus.start()
        let network = try await NetworkMonitorServer.start(on: bus, metered: false)
        let podsd = try await PodsdProcess.start(bus: bus)
        let episode = try #require(try await fixture.subscribe(podsd)[.ogg])
        fixture.server.hold(path)
        let asked = Task { await podsd.pods("download", String(episode)) }
        try await waitFor(timeout: .seconds(10)) { fixture.server.requests(for: path) >= 1 }  // starting: its probe waits on the server
        try network.setMetered(true)
        try await Task.sleep(for: .milliseconds(500))
        fixture.server.release(path)
        _ = await asked.value
        try await waitFor(timeout: .seconds(10)) { (try? await downloadState(podsd, episode)) == "metered" }
        try await Task.sleep(for: .seconds(2))
        #expect(try await downloadState(podsd, episode) == "metered")
        let original = try #require(fixture.files[.ogg])
        #expect(fixture.server.bytesSent(for: path) < original.count / 2, "it ran on the metered network")
        try network.setMetered(false)
        try await waitFor(timeout: .seconds(20)) { (try? await downloadState(podsd, episode)) == "downloaded" }
    }

    /// Streaming on a metered network fetches only what playback needs
    /// ahead (a few seconds), not the minute and a half it keeps otherwise.
    @Test func readAheadIsOnlyWhatPlaybackNeedsOnAMeteredNetwork() async throws {
        var fetched: [Bool: Int] = [:]
        for metered in [false, true] {
            let fixture = try await EpisodeServer(seconds: 240)
            let bus = try await PrivateBus.start()
            _ = try await NetworkMonitorServer.start(on: bus, metered: metered)
            let podsd = try await PodsdProcess.start(bus: bus)
            let episode = try #require(try await fixture.subscribe(podsd)[.ogg])
            #expect(await podsd.pods("play", String(episode)).status == 0)
            try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(10)) { $0 > 3 }
            try await Task.sleep(for: .seconds(1))
            fetched[metered] = fixture.server.bytesSent(for: EpisodeServer.path(.ogg))
        }
        let open = try #require(fetched[false]), metered = try #require(fetched[true])
        #expect(metered * 2 < open, "fetched \(metered) bytes on the metered network, \(open) on the other")
    }

    /// Without the portal, NetworkManager's `Metered` on the system bus
    /// says it (a guessed yes counts), and its changes are followed.
    @Test func withoutThePortalNetworkManagerSaysIt() async throws {
        let fixture = try await EpisodeServer(seconds: 30)
        let networkManager = try await NetworkManagerServer.start(metered: 3)
        let podsd = try await PodsdProcess.start(environment: networkManager.environment)
        let episode = try #require(try await fixture.subscribe(podsd)[.mp3])
        #expect(await podsd.pods("download", String(episode)).stdout.contains("waits for a network that is not metered"))
        #expect(try await downloadState(podsd, episode) == "metered")
        try networkManager.setMetered(4)
        try await waitFor(timeout: .seconds(10)) { (try? await downloadState(podsd, episode)) == "downloaded" }
    }

    @Test func meteredDownloadsAllowLetsThemRun() async throws {
        let fixture = try await EpisodeServer(seconds: 30)
        let bus = try await PrivateBus.start()
        _ = try await NetworkMonitorServer.start(on: bus, metered: true)
        let podsd = try await PodsdProcess.start(bus: bus)
        #expect(await podsd.pods("config", "metered-downloads", "allow").status == 0)
        let episode = try #require(try await fixture.subscribe(podsd)[.mp3])
        let result = await podsd.pods("download", String(episode))
        #expect(result.status == 0 && result.stdout.contains("✓"), "\(result)")
        #expect(try await downloadState(podsd, episode) == "downloaded")
    }
}
