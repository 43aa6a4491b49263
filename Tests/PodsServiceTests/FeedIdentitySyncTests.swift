import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// A subscription's identity is its feed URL, and it moves only on the
/// feed's own proof — on every device the sync reaches. Two libraries and a
/// sync server stand-in: a legitimate move reaches the other device as a
/// move (REVIEW-4, N1: it deleted the podcast, with its progress, on every
/// device), and a feed repeating the show's guid and title, added through
/// the sync server, an OPML file or a podroll, takes nothing over (N2).
@Suite(.timeLimit(.minutes(6))) struct FeedIdentitySyncTests {
    static let guid = "5d0a8d59-0f7e-5e4a-a0c1-3b5c1d2e7f60"

    /// The show's feed at any URL; `movedTo` adds its own new-feed-url.
    static func feed(_ world: SyncWorld, title: String = "Moving Show", movedTo: String? = nil, episodes: Int = 2) -> Data {
        var xml = """
            <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
              xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel><title>\(title)</title>
            <podcast:guid>\(guid)</podcast:guid>
            """
        if let movedTo { xml += "<itunes:new-feed-url>\(movedTo)</itunes:new-feed-url>" }
        for index in 1...episodes {
            xml += "<item><title>M\(index)</title><guid>m\(index)-guid</guid><pubDate>0\(index) Nov 2026 08:00:00 GMT</pubDate>"
            xml += #"<enclosure url="\#(world.feeds.url("/a\(index).mp3"))" type="audio/mpeg"/></item>"#
        }
        return Data((xml + "</channel></rss>").utf8)
    }

    static func feedURLs(_ podsd: PodsdProcess) async throws -> [String] {
        try await LibraryClient(podsd.client).podcastsJSON().compactMap { $0["feedURL"] as? String }.sorted()
    }

    @Test(arguments: [SyncServerStandIn.API.gpodder, .nextcloud])
    func aMoveTheFeedProvesReachesTheOtherDeviceAsAMove(api: SyncServerStandIn.API) async throws {
        let world = try SyncWorld(api: api)
        defer { world.stop() }
        let (old, new) = (world.feeds.url("/old.xml"), world.feeds.url("/new.xml"))
        world.feeds.setFile("/old.xml", Self.feed(world))
        world.feeds.setFile("/new.xml", Self.feed(world))
        world.server.linkDevices(["laptop", "desktop"])
        let laptop = try await joined(world, [old], device: "laptop")
        let desktop = try await joined(world, [old], device: "desktop")
        let heard = try await listen(desktop, "m1-guid", at: 20)
        try await LibraryClient(desktop.client).mark(episode: try await episodeID(desktop, "m2-guid"), played: true)
        _ = try await syncJSON(desktop)

        // The old feed says where it went; the laptop follows it and tells the server.
        world.feeds.setFile("/old.xml", Self.feed(world, movedTo: new))
        #expect(await laptop.pods("refresh").status == 0)
        #expect(try await Self.feedURLs(laptop) == [new])
        _ = try await syncJSON(laptop)
        #expect(world.server.subscriptions(device: "laptop") == [new])
        await world.settle()

        // The desktop hears "remove old, add new": the same podcast moved, its progress and played marks kept.
        let synced = try await syncJSON(desktop)
        #expect(synced["error"] is NSNull, "\(synced)")
        #expect(try await Self.feedURLs(desktop) == [new])
        let episodes = try await episodesByGuid(desktop)
        #expect(Int(episodes["m1-guid"]?["position"] as? Double ?? -1) == heard, "\(episodes)")
        #expect(episodes["m2-guid"]?["completed"] as? Bool == true, "\(episodes)")
        // Nothing told the server to drop the show: every device still follows it.
        #expect(world.server.subscriptions(device: "desktop") == [new])
        await world.settle()
        _ = try await syncJSON(laptop)
        #expect(try await Self.feedURLs(laptop) == [new])
        #expect(laptop.isRunning && desktop.isRunning)
    }

    @Test func aFeedRepeatingTheGuidAndTitleTakesNothingOver() async throws {
        let world = try SyncWorld(api: .nextcloud)
        defer { world.stop() }
        let (real, copy, podroll) = (world.feeds.url("/real.xml"), world.feeds.url("/copy.xml"), world.feeds.url("/roll.xml"))
        world.feeds.setFile("/real.xml", Self.feed(world, episodes: 3))
        world.feeds.setFile("/copy.xml", Self.feed(world, title: "MOVING SHOW", episodes: 1))
        world.feeds.setFile("/roll.xml", Self.feed(world, episodes: 1))
        let laptop = try await joined(world, [real], device: "laptop")
        let heard = try await listen(laptop, "m2-guid", at: 15)
        let before = try await episodesByGuid(laptop)
        #expect(before.count == 3)

        // Through the sync server (another device "adds" the copy), an OPML file and a podroll entry's URL.
        world.server.changeSubscriptions(add: [copy])
        await world.settle()
        _ = try await syncJSON(laptop)
        let opml = FileManager.default.temporaryDirectory.appendingPathComponent("identity-\(UUID().uuidString).opml")
        defer { try? FileManager.default.removeItem(at: opml) }
        try #"<?xml version="1.0"?><opml version="2.0"><body><outline type="rss" text="x" xmlUrl="\#(podroll)"/></body></opml>"#
            .write(to: opml, atomically: true, encoding: .utf8)
        #expect(await laptop.pods("import", opml.path).status == 0)

        // The real subscription is where it was, every episode and its progress kept; the others are podcasts of their own.
        #expect(try await Self.feedURLs(laptop) == [copy, real, podroll].sorted())
        let library = LibraryClient(laptop.client)
        let realID = try #require(try await library.podcastsJSON().first { $0["feedURL"] as? String == real }?["id"] as? Int)
        let kept = try await library.episodesJSON().filter { $0["podcastId"] as? Int == realID }
        #expect(kept.count == 3, "\(kept)")
        #expect(Int(kept.first { $0["guid"] as? String == "m2-guid" }?["position"] as? Double ?? -1) == heard)
        // And the server was never told the real feed went.
        _ = try await syncJSON(laptop)
        #expect(world.server.subscriptions(device: "laptop").contains(real))
    }
}
