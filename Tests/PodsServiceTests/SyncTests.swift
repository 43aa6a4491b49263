import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// Two podsd processes, each with its own library and bus, sync through a
/// stand-in of each server API: progress, played, unplayed, subscribe and
/// unsubscribe go both ways.
@Suite(.timeLimit(.minutes(10))) struct SyncTests {
    @Test(arguments: [SyncServerStandIn.API.gpodder, .nextcloud])
    func twoLibrariesFollowEachOther(api: SyncServerStandIn.API) async throws {
        let world = try SyncWorld(api: api)
        defer { world.stop() }
        let laptop = try await syncingPodsd()
        let desktop = try await syncingPodsd()
        // gpodder.net keeps subscriptions per device: the user links the two (on the website).
        world.server.linkDevices(["laptop", "desktop"])
        #expect(await laptop.pods("subscribe", world.showA).status == 0)
        #expect(await laptop.pods("subscribe", world.showB).status == 0)
        let setup = await world.setup(laptop, device: "laptop")
        #expect(setup.status == 0 && setup.stdout.contains("Syncing with"), "\(setup)")
        #expect(await world.setup(desktop, device: "desktop").status == 0)

        // The first sync sends every subscription; the other library subscribes to them.
        let first = try await syncJSON(laptop)
        #expect(first["error"] is NSNull, "\(first)")
        #expect(Set(world.server.subscriptions(device: "laptop")) == [world.showA, world.showB])
        // (Setting up syncs at once; this sync may find it done.)
        let joined = try await syncJSON(desktop)
        #expect(joined["error"] is NSNull, "\(joined)")
        #expect(Set(try await LibraryClient(desktop.client).podcastsJSON().compactMap { $0["feedURL"] as? String })
                == [world.showA, world.showB])

        // Laptop: A1 played, A2 listened to 0:40, A3 played then unplayed.
        let laptopLibrary = LibraryClient(laptop.client)
        try await laptopLibrary.mark(episode: try await episodeID(laptop, "a1-guid"), played: true)
        try await listen(laptop, "a2-guid", at: 40)
        let a3 = try await episodeID(laptop, "a3-guid")
        try await laptopLibrary.mark(episode: a3, played: true)
        let desktopA3 = try await episodeID(desktop, "a3-guid")
        try await LibraryClient(desktop.client).mark(episode: desktopA3, played: true)
        _ = try await syncJSON(desktop)
        try await Task.sleep(for: .seconds(1.1))  // the unplayed mark is the newest change
        try await laptopLibrary.mark(episode: a3, played: false)
        let sent = try await syncJSON(laptop)
        #expect((sent["uploaded"] as? Int ?? 0) >= 3 && sent["queued"] as? Int == 0, "\(sent)")

        await world.settle()
        let applied = try await syncJSON(desktop)
        #expect(applied["error"] is NSNull && (applied["applied"] as? Int ?? 0) >= 3, "\(applied)")
        var onDesktop = try await episodesByGuid(desktop)
        #expect(onDesktop["a1-guid"]?["completed"] as? Bool == true)
        #expect((onDesktop["a2-guid"]?["position"] as? Double ?? 0) >= 40 && onDesktop["a2-guid"]?["completed"] as? Bool == false)
        #expect(onDesktop["a3-guid"]?["completed"] as? Bool == false, "unplayed follows: \(onDesktop["a3-guid"] ?? [:])")

        // Desktop: B1 to 0:25, and Show A unsubscribed; the laptop follows.
        try await listen(desktop, "b1-guid", at: 25)
        #expect(await desktop.pods("unsubscribe", "Show A").status == 0)
        let back = try await syncJSON(desktop)
        #expect(back["error"] is NSNull, "\(back)")
        await world.settle()
        let followed = try await syncJSON(laptop)
        #expect(followed["unsubscribed"] as? Int == 1 && (followed["applied"] as? Int ?? 0) >= 1, "\(followed)")
        let onLaptop = try await episodesByGuid(laptop)
        #expect(onLaptop["a1-guid"] == nil, "Show A is gone from the laptop")
        #expect((onLaptop["b1-guid"]?["position"] as? Double ?? 0) >= 25)

        // Desktop → laptop too: played, a subscription, unplayed.
        let b2 = try await episodeID(desktop, "b2-guid")
        try await LibraryClient(desktop.client).mark(episode: b2, played: true)
        #expect(await desktop.pods("subscribe", world.showA).status == 0)
        _ = try await syncJSON(desktop)
        await world.settle()
        let again = try await syncJSON(laptop)
        #expect(again["subscribed"] as? Int == 1, "\(again)")
        #expect(try await episodesByGuid(laptop)["b2-guid"]?["completed"] as? Bool == true)
        try await LibraryClient(desktop.client).mark(episode: b2, played: false)
        _ = try await syncJSON(desktop)
        await world.settle()
        _ = try await syncJSON(laptop)
        #expect(try await episodesByGuid(laptop)["b2-guid"]?["completed"] as? Bool == false)

        // A sync with nothing new changes nothing and moves nothing back.
        let quiet = try await syncJSON(desktop)
        #expect(quiet["applied"] as? Int == 0 && quiet["uploaded"] as? Int == 0, "\(quiet)")
        onDesktop = try await episodesByGuid(desktop)
        #expect((onDesktop["b1-guid"]?["position"] as? Double ?? 0) >= 25)
        // --full reads everything again and sends all this library knows: still nothing moves.
        let state = { (episodes: [String: [String: Any]]) in episodes.mapValues { "\($0["position"] ?? "") \($0["completed"] ?? "")" } }
        let before = state(try await episodesByGuid(laptop))
        let full = try await syncJSON(laptop, full: true)
        #expect(full["error"] is NSNull && (full["uploaded"] as? Int ?? 0) >= 1, "\(full)")
        #expect(state(try await episodesByGuid(laptop)) == before)
    }
}
