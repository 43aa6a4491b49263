import Foundation
import Synchronization
import PodsClient
import PodsTestSupport
import Testing

/// What Pods makes of what servers and other clients send, and what it
/// sends them: matching, update_urls, the playing episode, hostile input,
/// and the exact shapes AntennaPod and gPodder read.
@Suite(.timeLimit(.minutes(10))) struct SyncInputTests {
    /// An action of a podcast subscribed while a sync runs (after its
    /// subscriptions went up) is sent by the next sync, never deleted unsent.
    @Test func anActionOfAPodcastSubscribedDuringASyncIsSentByTheNext() async throws {
        let world = try SyncWorld(api: .nextcloud)
        defer { world.stop() }
        let desktop = try await joined(world, [world.showA], device: "desktop")
        let reached = Mutex(false), go = Mutex(false)
        world.server.intercept { request, _ in
            // The sync's download of actions waits, after its subscriptions went up, until the test is done.
            if request.method == "GET", request.target.contains("episode_action") {
                reached.withLock { $0 = true }
                while !go.withLock({ $0 }) { usleep(10_000) }
            }
            return nil
        }
        let syncing = Task { _ = try await syncJSON(desktop) }
        try await waitFor(timeout: .seconds(20)) { reached.withLock { $0 } }
        #expect(await desktop.pods("subscribe", world.showB).status == 0)
        let episode = try #require(try await episodesByGuid(desktop)["b1-guid"]?["id"] as? Int64)
        try await LibraryClient(desktop.client).mark(episode: episode, played: true)
        go.withLock { $0 = true }
        try await syncing.value
        world.server.intercept(nil)
        _ = try await syncJSON(desktop)
        #expect(world.server.storedActions.contains { $0.podcast == world.showB && $0.guid == "b1-guid" },
                "\(world.server.storedActions.map(\.podcast))")
    }

    /// A feed URL the server sanitises (update_urls) is rewritten here too.
    @Test func feedURLRewrittenByUpdateURLs() async throws {
        let world = try SyncWorld(api: .gpodder)
        defer { world.stop() }
        let tracked = world.feeds.url("/show-a.xml?utm_source=pods")
        world.feeds.setFile("/show-a.xml?utm_source=pods", sampleFeed([("a1-guid", "A1", 1, world.feeds.url("/a1.mp3"))], title: "Show A"))
        let laptop = try await syncingPodsd()
        #expect(await laptop.pods("subscribe", tracked).status == 0)
        #expect(await world.setup(laptop, device: "laptop").status == 0)
        _ = try await syncJSON(laptop)
        let podcasts = try await LibraryClient(laptop.client).podcastsJSON()
        #expect(podcasts.map { $0["feedURL"] as? String } == [world.showA], "\(podcasts)")
        #expect(world.server.subscriptions(device: "laptop") == [world.showA])
        // Actions name the feed as the server knows it now.
        try await LibraryClient(laptop.client).mark(episode: try await episodeID(laptop, "a1-guid"), played: true)
        _ = try await syncJSON(laptop)
        #expect(world.server.storedActions.last?.podcast == world.showA)
    }

    /// Actions as other clients upload them: matched by guid though the
    /// enclosure URL changed (or the feed's), by a normalised URL without a guid; actions
    /// for unknown podcasts, absurd positions, -1 fields and dates years ahead change nothing.
    @Test func otherClientsActionsMatchedAndHostileOnesIgnored() async throws {
        let world = try SyncWorld(api: .nextcloud, episodesOfA: 4)
        defer { world.stop() }
        let desktop = try await joined(world, [world.showA, world.showB], device: "desktop")
        let before = try await episodesByGuid(desktop)
        let now = Date()
        let stamp = { (offset: TimeInterval) -> String in
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(secondsFromGMT: 3600)
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.string(from: now.addingTimeInterval(offset))  // "+01:00", as some clients send
        }
        world.server.upload([
            // The CDN moved the audio; the guid still names the episode.
            ["podcast": world.showA, "episode": "https://cdn.example.net/track/a1.mp3?download=1", "guid": "a1-guid",
             "action": "play", "timestamp": stamp(-5), "started": 0, "position": 33, "total": 90],
            // No guid; the URL as another client wrote it (scheme and host in capitals, a trailing slash).
            ["podcast": world.showB, "episode": world.feeds.url("/b1.mp3").replacingOccurrences(of: "http://127.0.0.1", with: "HTTP://127.0.0.1") + "/",
             "action": "play", "timestamp": stamp(-4), "started": 0, "position": 12, "total": 90],
            // The feed as it was called before it moved; its guid finds the episode.
            ["podcast": "https://old-host.example/show-b.rss", "episode": "https://old-host.example/b2.mp3", "guid": "b2-guid",
             "action": "play", "timestamp": stamp(-4), "started": 0, "position": 15, "total": 90],
            // A podcast this library does not have.
            ["podcast": "https://elsewhere.example/feed", "episode": "https://elsewhere.example/1.mp3", "guid": "x",
             "action": "play", "timestamp": stamp(-3), "started": 0, "position": 10, "total": 90],
            // An absurd position.
            ["podcast": world.showA, "episode": world.feeds.url("/a2.mp3"), "guid": "a2-guid",
             "action": "play", "timestamp": stamp(-2), "started": 0, "position": 99_999, "total": 90],
            // AntennaPod's -1 fields.
            ["podcast": world.showA, "episode": world.feeds.url("/a3.mp3"), "guid": "a3-guid",
             "action": "play", "timestamp": stamp(-1), "started": -1, "position": -1, "total": -1],
            // Dated a century ahead (Nextcloud hands it out): it would win over every pause here until then.
            ["podcast": world.showA, "episode": world.feeds.url("/a4.mp3"), "guid": "a4-guid",
             "action": "play", "timestamp": stamp(100 * 365 * 86400), "started": 0, "position": 20, "total": 90],
        ])
        await world.settle()
        let result = try await syncJSON(desktop)
        #expect(result["error"] is NSNull && result["applied"] as? Int == 3 && result["skipped"] as? Int == 4, "\(result)")
        let after = try await episodesByGuid(desktop)
        #expect(Int(after["a1-guid"]?["position"] as? Double ?? 0) == 33)
        #expect(Int(after["b1-guid"]?["position"] as? Double ?? 0) == 12)
        #expect(Int(after["b2-guid"]?["position"] as? Double ?? 0) == 15)
        for guid in ["a2-guid", "a3-guid", "a4-guid"] {
            #expect(after[guid]?["position"] as? Double == before[guid]?["position"] as? Double
                    && after[guid]?["completed"] as? Bool == before[guid]?["completed"] as? Bool, "\(guid) unchanged")
        }
        #expect(await desktop.pods("status").status == 0, "podsd unaffected")
    }

    /// A remote change never moves the episode playing; it applies when it stops.
    @Test func thePlayingEpisodeMovesOnlyWhenItStops() async throws {
        let world = try SyncWorld(api: .gpodder)
        defer { world.stop() }
        let desktop = try await joined(world, [world.showA], device: "desktop")
        let id = try await episodeID(desktop, "a1-guid")
        try await LibraryClient(desktop.client).play(episode: id)
        try await ListeningScenario.waitForPosition(desktop.client, timeout: .seconds(10)) { $0 > 0.2 }
        let stamp = Date().addingTimeInterval(1)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        world.server.upload([["podcast": world.showA, "episode": world.feeds.url("/a1.mp3"), "guid": "a1-guid", "action": "play",
                              "timestamp": formatter.string(from: stamp), "started": 0, "position": 50, "total": 90, "device": "phone"]])
        try await Task.sleep(for: .seconds(2.2))  // the stand-in hands it out from the next second
        let result = try await syncJSON(desktop)
        #expect(result["applied"] as? Int == 1, "\(result)")
        try await Task.sleep(for: .milliseconds(500))
        let playing = Double(try await desktop.client.property("Position").int64Value ?? 0) / 1_000_000
        // Moved, it would be at 50 s or past it; playing on from 0.2 s it is
        // far below even when a loaded machine makes the sync take seconds.
        #expect(playing < 45, "still where it was playing: \(playing)")
        try await desktop.client.pause()
        try await ListeningScenario.waitForPosition(desktop.client, timeout: .seconds(5)) { abs($0 - 50) < 1 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(Int(try await episodesByGuid(desktop)["a1-guid"]?["position"] as? Double ?? 0) == 50)
    }

    /// A wrong password, a server that is not a sync server, malformed JSON,
    /// a dead server: one clear line each; the library and podsd unharmed.
    @Test func badServersAreOneClearLine() async throws {
        let world = try SyncWorld(api: .nextcloud)
        defer { world.stop() }
        let desktop = try await syncingPodsd()
        #expect(await desktop.pods("subscribe", world.showA).status == 0)
        let pods = Fixtures.executable("pods")
        func oneLine(_ result: CommandResult, _ text: String) {
            #expect(result.status == 1 && result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(text), "\(result)")
        }
        oneLine(await world.setup(desktop, device: "desktop", password: "wrong"), "refused the user name or password (HTTP 401)")
        let off = await desktop.pods("sync", "status")
        #expect(off.stdout.contains("Sync is off"), "\(off)")
        // The feeds' server has no sync API: a 404 (gpodder), a web page (a Nextcloud path that is not the app's).
        oneLine(await desktop.run(pods, ["sync", "setup", world.feeds.url(""), "--user", "alice", "--password-stdin"], input: "pw\n"),
                "is not a gpodder.net or Nextcloud GPodder Sync server")
        let html = try LoopbackHTTPServer(files: [:])
        defer { html.stop() }
        html.setHandler("/") { _ in LoopbackHTTPServer.Response(type: "text/html", body: Data("<!DOCTYPE html><html>Login</html>".utf8)) }
        oneLine(await desktop.run(pods, ["sync", "setup", html.url(""), "--user", "alice", "--api", "nextcloud", "--password-stdin"],
                                  input: "pw\n"), "it answered with a web page")

        #expect(await world.setup(desktop, device: "desktop").status == 0)
        _ = try await syncJSON(desktop)
        try await LibraryClient(desktop.client).mark(episode: try await episodeID(desktop, "a1-guid"), played: true)
        let before = try await episodesByGuid(desktop)
        world.server.intercept { request, _ in
            request.method == "GET" && request.path.hasSuffix("/episode_action")
                ? LoopbackHTTPServer.Response(body: Data(#"{"actions": [{"podcast": "#.utf8)) : nil
        }
        oneLine(await desktop.run(pods, ["sync"]), "its answer is not JSON")
        world.server.intercept { _, _ in LoopbackHTTPServer.Response(body: Data(#"{"add": "everything"}"#.utf8)) }
        oneLine(await desktop.run(pods, ["sync"]), "its answer has no timestamp")
        world.server.intercept(nil)
        world.server.stop()
        oneLine(await desktop.run(pods, ["sync"]), "stays queued for the next sync")
        let after = try await episodesByGuid(desktop)
        #expect(after.mapValues { "\($0["position"] ?? "")\($0["completed"] ?? "")" }
                == before.mapValues { "\($0["position"] ?? "")\($0["completed"] ?? "")" }, "the library unchanged")
        let status = try #require(JSONSerialization.jsonObject(with: Data(await desktop.pods("sync", "status", "--json").stdout.utf8)) as? [String: Any])
        #expect(status["queued"] as? Int == 1 && (status["lastError"] as? String)?.isEmpty == false, "\(status)")
        #expect(await desktop.pods("status").status == 0, "podsd unaffected")

        // The password was kept like a private feed's (no Secret Service on this bus: a 0600 file), and `off` forgets it.
        let file = desktop.directory.appendingPathComponent("data/credentials.json")
        #expect((try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) == 0o600)
        #expect(try String(contentsOf: file, encoding: .utf8).contains(SyncWorld.password))
        #expect(await desktop.pods("sync", "off").status == 0)
        #expect(!(try String(contentsOf: file, encoding: .utf8).contains(SyncWorld.password)))
        #expect(await desktop.pods("sync", "status").stdout.contains("Sync is off"))
        oneLine(await desktop.run(pods, ["sync"]), "sync is not set up")
    }

    /// With a Secret Service on the bus, the sync password goes there, under
    /// a key no feed's host matches; a restarted podsd syncs with it.
    @Test func thePasswordInTheSecretService() async throws {
        let world = try SyncWorld(api: .gpodder)
        defer { world.stop() }
        let bus = try await PrivateBus.start()
        let secrets = try await SecretServiceServer.start(on: bus)
        let directory = try Fixtures.temporaryDirectory()
        var desktop = try await PodsdProcess.start(bus: bus, directory: directory)
        #expect(await world.setup(desktop, device: "desktop").status == 0)
        let item = try #require(secrets.stored.first)
        #expect(item.attributes["origin"] == "sync http://127.0.0.1:\(world.server.http.port)" && item.attributes["user"] == "alice")
        #expect(String(decoding: item.secret, as: UTF8.self) == SyncWorld.password)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/credentials.json").path))
        let stopped = await desktop.signal(SIGTERM)
        #expect(stopped?.status == 0, "SIGTERM: \(String(describing: stopped)); \(desktop.errorOutput().suffix(2000))")
        desktop = try await PodsdProcess.start(bus: bus, directory: directory)
        let result = try await syncJSON(desktop)
        #expect(result["error"] is NSNull, "\(result)")
    }

    /// A remote remove does not take away a podcast subscribed here again since.
    @Test func aRemoteRemoveSparesAPodcastAddedHereSince() async throws {
        let world = try SyncWorld(api: .nextcloud)
        defer { world.stop() }
        let desktop = try await joined(world, [world.showA, world.showB], device: "desktop")
        await world.settle()
        #expect(await desktop.pods("unsubscribe", "Show B").status == 0)
        #expect(await desktop.pods("subscribe", world.showB).status == 0)  // back, not synced yet
        world.server.changeSubscriptions(device: "phone", add: [], remove: [world.showA, world.showB])
        await world.settle()
        let result = try await syncJSON(desktop)
        #expect(result["unsubscribed"] as? Int == 1, "\(result)")
        #expect(try await LibraryClient(desktop.client).podcastsJSON().compactMap { $0["feedURL"] as? String } == [world.showB])
        #expect(world.server.subscriptions() == [world.showB], "the add made here went up after the remove")
    }

    /// What Pods uploads has the shapes AntennaPod and gPodder read: field
    /// names and types, lower-case actions, naive UTC timestamps, whole
    /// seconds, at most 30 a batch; `sync = false` podcasts and private
    /// feeds never leave.
    @Test func uploadsHaveTheShapesOtherClientsReadAndPrivateOnesStay() async throws {
        let world = try SyncWorld(api: .gpodder, episodesOfA: 40)
        defer { world.stop() }
        // Credentials are kept per host: the private feed lives on a host of its own.
        let members = try LoopbackHTTPServer(files: ["/private/p1.mp3": Fixtures.sampleMP3])
        defer { members.stop() }
        members.setFile("/private/feed.xml", sampleFeed([("p1-guid", "P1", 1, members.url("/private/p1.mp3"))], title: "Members"))
        members.requireCredentials("/private/", user: "alice", password: "feed-pw")
        let laptop = try await syncingPodsd()
        #expect(await laptop.pods("subscribe", world.showA).status == 0)
        #expect(await laptop.pods("subscribe", world.showB).status == 0)
        let privateFeed = members.url("/private/feed.xml")
        #expect(await laptop.run(Fixtures.executable("pods"), ["subscribe", privateFeed, "--user", "alice", "--password-stdin"],
                                 input: "feed-pw\n").status == 0)
        #expect(await laptop.pods("config", "--podcast", "Show B", "sync", "false").status == 0)
        let library = LibraryClient(laptop.client)
        for episode in try await library.episodesJSON() { try await library.mark(episode: Int64(episode["id"] as? Int ?? 0), played: true) }
        try await library.mark(episode: try await episodeID(laptop, "a1-guid"), played: false)
        let a2Position = try await listen(laptop, "a2-guid", at: 20)
        #expect(await laptop.pods("download", String(try await episodeID(laptop, "a3-guid"))).status == 0)
        #expect(await world.setup(laptop, device: "laptop").status == 0)  // which syncs at once
        try await waitUntil("the setup's sync") { world.server.uploadedActionBodies.count == 2 }
        // The server has the uploads before podsd has read their answers and kept the sync's result.
        func syncStatus() async -> [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(await laptop.pods("sync", "status", "--json").stdout.utf8))) as? [String: Any]
        }
        try await waitUntil("the setup's sync result") { await syncStatus()?["last"] is [String: Any] }
        let status = try #require(await syncStatus())
        let last = try #require(status["last"] as? [String: Any])
        #expect(last["uploaded"] as? Int == 41 && status["queued"] as? Int == 0, "\(status)")

        #expect(world.server.subscriptions(device: "laptop") == [world.showA], "Show B (sync = false) and the private feed stay here")
        // Unsubscribed, they leave no trace there either.
        #expect(await laptop.pods("unsubscribe", "Show B").status == 0)
        #expect(await laptop.pods("unsubscribe", "Members").status == 0)
        #expect(await laptop.pods("unsubscribe", "Show A").status == 0)
        _ = try await syncJSON(laptop)
        #expect(world.server.subscriptionURLsSeen == [world.showA] && world.server.subscriptions(device: "laptop").isEmpty)
        let bodies = world.server.uploadedActionBodies
        #expect(bodies.count == 2)
        let naive = try Regex(#"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$"#)
        for body in bodies {
            let actions = try #require(JSONSerialization.jsonObject(with: body) as? [[String: Any]])
            #expect(actions.count <= 30)
            for action in actions {
                #expect(Set(action.keys).isSubset(of: ["podcast", "episode", "guid", "action", "timestamp", "started", "position", "total", "device"]))
                #expect(action["podcast"] as? String == world.showA && (action["episode"] as? String)?.hasPrefix("http") == true)
                #expect(action["guid"] is String && action["device"] as? String == "laptop")
                #expect(["play", "new", "download"].contains(action["action"] as? String ?? ""))
                #expect((action["timestamp"] as? String).map { $0.wholeMatch(of: naive) != nil } == true, "\(action)")
                if action["action"] as? String == "play" {
                    for key in ["started", "position", "total"] {
                        // Whole numbers, written without a fraction (AntennaPod reads them with getInt).
                        let value = try #require(action[key] as? NSNumber, "\(key) in \(action)")
                        #expect(!["d", "f"].contains(String(cString: value.objCType)) && value.intValue >= 0)
                    }
                }
            }
            let text = String(decoding: body, as: UTF8.self)
            #expect(!text.contains("\\/") && !text.contains(".0,"), "URLs unescaped, integers plain: \(text.prefix(200))")
        }
        let sent = bodies.flatMap { (try? JSONSerialization.jsonObject(with: $0) as? [[String: Any]]) ?? [] }
        #expect(sent.first { $0["guid"] as? String == "a1-guid" }?["action"] as? String == "new")
        #expect(sent.filter { $0["guid"] as? String == "a3-guid" }.compactMap { $0["action"] as? String }.sorted() == ["download", "play"])
        let a2 = try #require(sent.first { $0["guid"] as? String == "a2-guid" })
        #expect(a2["position"] as? Int == a2Position && a2["total"] as? Int == 90, "\(a2)")
    }

    /// podsd syncs by itself: at start, after a refresh, and after playback pauses.
    @Test func syncsByItself() async throws {
        let world = try SyncWorld(api: .nextcloud)
        defer { world.stop() }
        let directory = try Fixtures.temporaryDirectory()
        try "sync-delay = \"1s\"\n".write(to: directory.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        var laptop = try await PodsdProcess.start(directory: directory)
        #expect(await laptop.pods("subscribe", world.showA).status == 0)
        #expect(await world.setup(laptop, device: "laptop").status == 0)
        try await waitUntil("the setup's sync") { world.server.subscriptions() == [world.showA] }

        let paused = try await listen(laptop, "a1-guid", at: 15)
        try await waitUntil("a sync a second after the pause") { world.server.storedActions.contains { $0.position == paused } }

        #expect(await laptop.pods("subscribe", world.showB).status == 0)
        #expect(await laptop.pods("refresh").status == 0)
        try await waitUntil("a sync after the refresh") { world.server.subscriptions().contains(world.showB) }

        #expect(await laptop.signal(SIGTERM)?.status == 0)
        try await Task.sleep(for: .seconds(1.1))  // Nextcloud hands out changes after `since`, strictly
        world.server.changeSubscriptions(add: [world.feeds.url("/show-a.xml?from=phone")])
        world.feeds.setFile("/show-a.xml?from=phone", sampleFeed([("c1-guid", "C1", 1, world.feeds.url("/a3.mp3"))], title: "Show C"))
        try await Task.sleep(for: .seconds(1.1))
        laptop = try await PodsdProcess.start(directory: directory)
        try await waitUntil("a sync at start") {
            (try? await LibraryClient(laptop.client).podcastsJSON().count) == 3
        }
    }
}

/// Polls `condition` for up to 15 s.
func waitUntil(_ what: String, _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(15)
    while ContinuousClock.now < deadline {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw TestSupportError("\(what) did not happen within 15 s")
}
