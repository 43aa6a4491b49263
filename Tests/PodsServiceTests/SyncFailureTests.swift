import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// Nothing is lost: a clock an hour behind, an offline period, a 500 in
/// the middle of a batch, a kill -9 in the middle of a sync.
@Suite(.timeLimit(.minutes(10))) struct SyncFailureTests {
    /// The desktop runs an hour behind (libfaketime); its changes still win
    /// when they are the newer ones, and reach the server stamped right.
    @Test(arguments: [SyncServerStandIn.API.gpodder, .nextcloud])
    func clockSkewOfAnHour(api: SyncServerStandIn.API) async throws {
        let world = try SyncWorld(api: api)
        defer { world.stop() }
        world.server.linkDevices(["laptop", "desktop"])
        let laptop = try await syncingPodsd()
        let desktop = try await syncingPodsd(environment: [
            "LD_PRELOAD": "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", "FAKETIME": "-1h",
            "FAKETIME_DONT_FAKE_MONOTONIC": "1", "FAKETIME_NO_CACHE": "1",
        ])
        #expect(await laptop.pods("subscribe", world.showA).status == 0)
        #expect(await world.setup(laptop, device: "laptop").status == 0)
        #expect(await world.setup(desktop, device: "desktop").status == 0)
        _ = try await syncJSON(laptop)
        _ = try await syncJSON(desktop)

        let first = try await listen(laptop, "a1-guid", at: 30)
        _ = try await syncJSON(laptop)
        await world.settle()
        _ = try await syncJSON(desktop)
        #expect(Int(try await episodesByGuid(desktop)["a1-guid"]?["position"] as? Double ?? 0) == first)

        // Later, by the wall clock (timestamps are whole seconds), though the desktop's own says an hour earlier.
        await world.settle()
        let later = try await listen(desktop, "a1-guid", at: 45)
        let sent = try await syncJSON(desktop)
        #expect(sent["uploaded"] as? Int == 1, "\(sent)")
        let stamped = try #require(world.server.storedActions.last { $0.position == later })
        #expect(abs(stamped.timestamp - Int64(Date().timeIntervalSince1970)) < 30, "sent in the server's time, not an hour back")
        await world.settle()
        let followed = try await syncJSON(laptop)
        #expect(followed["applied"] as? Int == 1, "\(followed)")
        #expect(Int(try await episodesByGuid(laptop)["a1-guid"]?["position"] as? Double ?? 0) == later)

        let status = await desktop.pods("sync", "status", "--json")
        let offset = try #require((JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["clockOffset"] as? Double)
        #expect(abs(offset - 3600) < 5, "the desktop measured its clock an hour behind the server's: \(offset)")
    }

    /// Actions made offline stay queued, go when the server is back, and
    /// reach a device that synced in between (its `since` is past their time).
    @Test func offlinePeriodQueues() async throws {
        let world = try SyncWorld(api: .gpodder)
        defer { world.stop() }
        world.server.linkDevices(["laptop", "desktop"])
        let laptop = try await joined(world, [world.showA], device: "laptop")
        let desktop = try await joined(world, [], device: "desktop")

        world.server.http.setOffline(true)
        let offline = try await listen(laptop, "a1-guid", at: 20)
        try await LibraryClient(laptop.client).mark(episode: try await episodeID(laptop, "a2-guid"), played: true)
        let failed = await laptop.run(Fixtures.executable("pods"), ["sync"])
        #expect(failed.status == 1 && failed.stderr.split(separator: "\n").count == 1 && failed.stderr.contains("stays queued"), "\(failed)")
        let status = try #require(JSONSerialization.jsonObject(with: Data(await laptop.pods("sync", "status", "--json").stdout.utf8)) as? [String: Any])
        #expect(status["queued"] as? Int == 2 && status["lastError"] is String, "\(status)")

        world.server.http.setOffline(false)
        try await Task.sleep(for: .seconds(2))
        let desktopSync = try await syncJSON(desktop)  // its since moves past the laptop's offline actions
        #expect(desktopSync["applied"] as? Int == 0)
        let since = Int64(Date().timeIntervalSince1970)
        let sent = try await syncJSON(laptop)
        #expect(sent["uploaded"] as? Int == 2 && sent["queued"] as? Int == 0, "\(sent)")
        // A client that stored the server's timestamp (AntennaPod) asks from there and still gets them.
        await world.settle()
        let later = world.server.apiAnswer(LoopbackHTTPServer.Request(target: "/api/2/episodes/alice.json?since=\(since)", headers: [:]))
        let actions = (try JSONSerialization.jsonObject(with: later.body) as? [String: Any])?["actions"] as? [[String: Any]] ?? []
        #expect(actions.count == 2, "\(actions)")
        _ = try await syncJSON(desktop)
        let onDesktop = try await episodesByGuid(desktop)
        #expect(Int(onDesktop["a1-guid"]?["position"] as? Double ?? 0) == offline && onDesktop["a2-guid"]?["completed"] as? Bool == true)
    }

    /// What a library held before it joined goes with the time it happened:
    /// another device's later listening, not yet synced, still wins.
    @Test func historyKeepsItsOwnTime() async throws {
        let world = try SyncWorld(api: .gpodder)
        defer { world.stop() }
        world.server.linkDevices(["laptop", "desktop"])
        let laptop = try await syncingPodsd()
        #expect(await laptop.pods("subscribe", world.showA).status == 0)
        let history = try await listen(laptop, "a1-guid", at: 10)
        let desktop = try await joined(world, [world.showA], device: "desktop")
        await world.settle()
        let newer = try await listen(desktop, "a1-guid", at: 40)  // later, not synced yet
        #expect(await world.setup(laptop, device: "laptop").status == 0)
        try await waitUntil("the laptop's first sync") { world.server.storedActions.contains { $0.device == "laptop" } }
        #expect(world.server.storedActions.first { $0.device == "laptop" }?.position == history)
        await world.settle()
        let desktopSync = try await syncJSON(desktop)
        #expect(desktopSync["applied"] as? Int == 0, "\(desktopSync)")
        #expect(Int(try await episodesByGuid(desktop)["a1-guid"]?["position"] as? Double ?? 0) == newer)
        await world.settle()
        _ = try await syncJSON(laptop)
        #expect(Int(try await episodesByGuid(laptop)["a1-guid"]?["position"] as? Double ?? 0) == newer)
    }

    /// 70 actions go in batches of 30; the second batch's 500 keeps it and
    /// the rest queued; the next sync sends them, and none twice.
    @Test func serverErrorMidBatchThenKillMidSync() async throws {
        let world = try SyncWorld(api: .gpodder, episodesOfA: 70)
        defer { world.stop() }
        let directory = try Fixtures.temporaryDirectory()
        try "sync-delay = 0\n".write(to: directory.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        var laptop = try await PodsdProcess.start(directory: directory)
        #expect(await laptop.pods("subscribe", world.showA).status == 0)
        #expect(await world.setup(laptop, device: "laptop").status == 0)
        _ = try await syncJSON(laptop)
        let library = LibraryClient(laptop.client)
        let ids = try await library.episodesJSON().compactMap { ($0["id"] as? Int).map(Int64.init) }
        #expect(ids.count == 70)
        for id in ids { try await library.mark(episode: id, played: true) }

        world.server.intercept { _, upload in
            upload == 2 ? LoopbackHTTPServer.Response(status: 500, type: "text/html", body: Data("<h1>Server Error</h1>".utf8)) : nil
        }
        let broken = try await syncJSON(laptop)
        #expect(broken["uploaded"] as? Int == 30 && broken["queued"] as? Int == 40, "\(broken)")
        #expect((broken["error"] as? String)?.contains("HTTP 500") == true)
        #expect(world.server.storedActions.count == 30)
        world.server.intercept(nil)
        let rest = try await syncJSON(laptop)
        #expect(rest["uploaded"] as? Int == 40 && rest["queued"] as? Int == 0, "\(rest)")
        let stored = world.server.storedActions
        #expect(stored.count == 70 && Set(stored.map(\.episode)).count == 70, "each episode once")

        // kill -9 while the server holds the answer to a batch it has stored.
        for id in ids.prefix(35) { try await library.mark(episode: id, played: false) }
        let held = world.server
        held.intercept { request, upload in
            guard upload > 0 else { return nil }
            let answer = held.apiAnswer(request)
            usleep(4_000_000)
            return answer
        }
        let killed = laptop
        Task { _ = await killed.run(Fixtures.executable("pods"), ["sync"]) }
        let deadline = ContinuousClock.now + .seconds(10)
        while world.server.storedActions.count == 70, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        kill(killed.processIdentifier, SIGKILL)
        _ = await killed.waitForExit(timeout: .seconds(5))
        held.intercept(nil)
        laptop = try await PodsdProcess.start(directory: directory)
        let after = try await syncJSON(laptop)
        #expect(after["error"] is NSNull && after["queued"] as? Int == 0, "\(after)")
        // The first batch may be stored twice, never with a position that moves anyone back.
        let latest = Dictionary(world.server.storedActions.map { ($0.episode, $0) }, uniquingKeysWith: { $1 })
        let unplayed = Set(try await LibraryClient(laptop.client).episodesJSON(unplayedOnly: true).compactMap { $0["url"] as? String })
        #expect(unplayed.count == 35)
        for url in unplayed { #expect(latest[url]?.action == "new", "\(url): \(String(describing: latest[url]))") }
        #expect(world.server.storedActions.count <= 70 + 35 + 30)
    }
}
