import Foundation
import Synchronization
import PodsClient
import PodsTestSupport
import Testing

/// Private feeds: the user name and password are kept apart from the URL
/// (Secret Service, else a 0600 file), used for the feed and its audio on
/// the same host, and never printed or exported.
@Suite(.timeLimit(.minutes(10))) struct PrivateFeedTests {
    static func server() throws -> LoopbackHTTPServer {
        let server = try LoopbackHTTPServer(files: ["/private/a.mp3": Fixtures.sampleMP3])
        server.setFile("/private/feed.xml", sampleFeed([("p1", "Members only", 1, server.url("/private/a.mp3"))], title: "Private Show"))
        server.setFile("/private/other.xml", sampleFeed([("o1", "Also private", 1, server.url("/private/a.mp3"))], title: "Other Private"))
        server.requireCredentials("/private/", user: "alice", password: "s3cret-pw")
        return server
    }

    @Test func kept0600ApartFromTheURLAndNeverShown() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let directory = try Fixtures.temporaryDirectory()
        let podsd = try await PodsdProcess.start(directory: directory)
        let pods = Fixtures.executable("pods")
        let feed = server.url("/private/feed.xml")

        let bare = await podsd.run(pods, ["subscribe", feed])
        #expect(bare.status == 1 && bare.stderr.contains("this feed needs a user name and password")
                && bare.stderr.split(separator: "\n").count == 1, "\(bare)")
        let wrong = await podsd.run(pods, ["subscribe", feed, "--user", "alice", "--password-stdin"], input: "guess\n")
        #expect(wrong.status == 1 && wrong.stderr.contains("or the ones given are wrong"), "\(wrong)")
        let file = directory.appendingPathComponent("data/credentials.json")
        #expect(!FileManager.default.fileExists(atPath: file.path), "nothing kept of a failed try")

        let right = await podsd.run(pods, ["subscribe", feed, "--user", "alice", "--password-stdin"], input: "s3cret-pw\n")
        #expect(right.status == 0 && right.stdout.contains("Subscribed to Private Show"), "\(right)")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try String(contentsOf: file, encoding: .utf8).contains("s3cret-pw"))
        // user:password@ in the URL works the same, and the URL is kept without them.
        let inline = await podsd.run(pods, ["subscribe", feed.replacingOccurrences(of: "http://", with: "http://alice:s3cret-pw@")
            .replacingOccurrences(of: "feed.xml", with: "other.xml")])
        #expect(inline.status == 0, "\(inline)")

        // A wrong password for another feed on the same host leaves the one that works.
        let mistyped = await podsd.run(pods, ["subscribe", server.url("/private/third.xml"), "--user", "alice", "--password-stdin"],
                                       input: "typo\n")
        #expect(mistyped.status == 1, "\(mistyped)")
        let refreshed = try await LibraryClient(podsd.client).refreshJSON()
        #expect(refreshed.count == 2 && refreshed.allSatisfy { $0["error"] is NSNull }, "\(refreshed)")

        for arguments in [["podcasts"], ["podcasts", "--json"], ["export"], ["episodes", "--json"], ["status", "--json"]] {
            let output = await podsd.run(pods, arguments)
            #expect(!output.stdout.contains("s3cret") && !output.stdout.contains("alice"), "\(arguments): \(output.stdout)")
        }
        // The audio on the same host is fetched with them too.
        let episodes = try await LibraryClient(podsd.client).episodesJSON()
        let id = try #require(episodes.first { $0["title"] as? String == "Members only" }?["id"] as? Int)
        #expect(await podsd.pods("play", String(id)).status == 0)
        try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(10)) { $0 > 0.5 }

        // Another podsd on the same library reads them back: its refresh works.
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        let again = try await PodsdProcess.start(directory: directory)
        let results = try await LibraryClient(again.client).refreshJSON()
        #expect(results.count == 2 && results.allSatisfy { $0["error"] is NSNull }, "\(results)")
    }

    /// gPodder and others export a private feed as `user:password@host`:
    /// imported, the password goes to the store and nowhere else: not the
    /// library, `pods podcasts`, the export, the import's results or the log.
    @Test func aPasswordInAnImportedOPMLIsKeptApartAndNeverShown() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let directory = try Fixtures.temporaryDirectory()
        let podsd = try await PodsdProcess.start(directory: directory)
        let pods = Fixtures.executable("pods")
        let opml = directory.appendingPathComponent("private.opml")
        let inline = server.url("/private/feed.xml").replacingOccurrences(of: "http://", with: "http://alice:s3cret-pw@")
        try Data(#"<opml version="2.0"><body><outline text="Private" xmlUrl="\#(inline)"/></body></opml>"#.utf8).write(to: opml)
        let imported = await podsd.run(pods, ["import", "--json", opml.path])
        #expect(imported.status == 0 && !imported.stdout.contains("s3cret"), "\(imported)")
        for arguments in [["podcasts"], ["podcasts", "--json"], ["export"]] {
            let output = await podsd.run(pods, arguments)
            #expect(output.stdout.contains("Private Show") || output.stdout.contains("private/feed.xml"), "\(arguments): \(output)")
            #expect(!output.stdout.contains("s3cret") && !output.stdout.contains("alice"), "\(arguments): \(output.stdout)")
        }
        let refreshed = try await LibraryClient(podsd.client).refreshJSON()
        #expect(refreshed.count == 1 && refreshed.allSatisfy { $0["error"] is NSNull }, "\(refreshed)")
        #expect(try String(contentsOf: directory.appendingPathComponent("data/credentials.json"), encoding: .utf8).contains("s3cret-pw"))
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        #expect(!podsd.errorOutput().contains("s3cret"))
        let library = try Data(contentsOf: directory.appendingPathComponent("data/library.sqlite"))
        #expect(library.range(of: Data("s3cret".utf8)) == nil)
    }

    @Test func inTheSecretServiceWhenOneIsOnTheBus() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let directory = try Fixtures.temporaryDirectory()
        let bus = try await PrivateBus.start()
        let secrets = try await SecretServiceServer.start(on: bus)
        let podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        let result = await podsd.run(Fixtures.executable("pods"), ["subscribe", server.url("/private/feed.xml"), "--user", "alice",
                                                                   "--password-stdin"], input: "s3cret-pw\n")
        #expect(result.status == 0, "\(result)")
        let item = try #require(secrets.stored.first)
        #expect(item.attributes["application"] == "org.pods.Pods" && item.attributes["user"] == "alice"
                && item.attributes["origin"] == "http://127.0.0.1:\(server.port)")
        #expect(String(decoding: item.secret, as: UTF8.self) == "s3cret-pw")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/credentials.json").path))
        // A restarted podsd gets them from the Secret Service.
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        let again = try await PodsdProcess.start(bus: bus, directory: directory)
        let results = try await LibraryClient(again.client).refreshJSON()
        #expect(results.first?["error"] is NSNull, "\(results)")
    }

    /// Credentials go only to the origin they were given for: a redirect to
    /// another origin (here another port; https to http is one too, its
    /// scheme and port differ) drops them, and the feed's audio on another
    /// host is fetched without them. A redirect within the origin keeps them.
    @Test func credentialsNeverFollowARedirectToAnotherOrigin() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let elsewhere = try LoopbackHTTPServer(files: [:])
        defer { elsewhere.stop() }
        let seen = Mutex<[String]>([]), audioSeen = Mutex<[String]>([])
        let audio = try Data(contentsOf: Fixtures.sampleMP3)
        elsewhere.setHandler("/a.mp3") { request in
            audioSeen.withLock { $0.append(request.headers["authorization"] ?? "none") }
            return LoopbackHTTPServer.Response(type: "audio/mpeg", body: audio)
        }
        elsewhere.setHandler("/feed.xml") { request in
            seen.withLock { $0.append(request.headers["authorization"] ?? "none") }
            return LoopbackHTTPServer.Response(type: "application/rss+xml",
                                               body: sampleFeed([("e1", "Elsewhere", 1, elsewhere.url("/a.mp3"))], title: "Elsewhere"))
        }
        for (path, location) in [("/private/moved", elsewhere.url("/feed.xml")), ("/private/renamed", server.url("/private/feed.xml"))] {
            server.setHandler(path) { _ in LoopbackHTTPServer.Response(status: 302, body: Data(), headers: [("Location", location)]) }
        }
        let podsd = try await PodsdProcess.start()
        let pods = Fixtures.executable("pods")
        let within = await podsd.run(pods, ["subscribe", server.url("/private/renamed"), "--user", "alice", "--password-stdin"],
                                     input: "s3cret-pw\n")
        #expect(within.status == 0 && within.stdout.contains("Private Show"), "\(within)")
        let away = await podsd.run(pods, ["subscribe", server.url("/private/moved"), "--user", "alice", "--password-stdin"],
                                   input: "s3cret-pw\n")
        #expect(away.status == 0 && away.stdout.contains("Elsewhere"), "\(away)")
        #expect(server.requests(for: "/private/moved") >= 1 && seen.withLock { $0 } == ["none"], "\(seen.withLock { $0 })")
        // The audio on the other host: played, and fetched without the password.
        let episode = try #require(try await LibraryClient(podsd.client).episodesJSON().first { $0["guid"] as? String == "e1" }?["id"] as? Int64)
        #expect(await podsd.pods("play", String(episode)).status == 0)
        #expect(!audioSeen.withLock { $0 }.isEmpty && audioSeen.withLock { $0 }.allSatisfy { $0 == "none" }, "\(audioSeen.withLock { $0 })")
    }

    /// A password in a URL another device synced goes to the store as one
    /// typed does: the library, listings, export and log never hold it, and
    /// nothing Pods sends the sync server does (the feed is private, so it
    /// stays off the server, and so do its episodes' actions).
    @Test func aPasswordInASyncedURLIsKeptApartAndNeverSentBack() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let world = try SyncWorld(api: .nextcloud)
        defer { world.stop() }
        let sent = Mutex<[String]>([])
        world.server.intercept { request, _ in
            sent.withLock { $0.append(request.target + " " + String(decoding: request.body, as: UTF8.self)) }
            return nil
        }
        let desktop = try await joined(world, [world.showA], device: "desktop")
        let feed = server.url("/private/feed.xml")
        world.server.changeSubscriptions(add: [feed.replacingOccurrences(of: "http://", with: "http://alice:s3cret-pw@")])
        await world.settle()
        let result = try await syncJSON(desktop)
        #expect(result["subscribed"] as? Int == 1, "\(result)")
        let library = LibraryClient(desktop.client)
        let podcasts = try await library.podcastsJSON()
        #expect(podcasts.compactMap { $0["feedURL"] as? String }.sorted() == [feed, world.showA].sorted(), "\(podcasts)")
        // Its episodes play with the kept password: listen to one, so there is an action to (not) upload.
        let episode = try #require(try await episodesByGuid(desktop)["p1"]?["id"] as? Int64)
        try await library.mark(episode: episode, played: true)
        #expect(await desktop.pods("subscribe", world.showB).status == 0)
        _ = try await syncJSON(desktop)
        #expect(try await library.refreshJSON().allSatisfy { $0["error"] is NSNull })

        let printed = [await desktop.pods("podcasts"), await desktop.pods("podcasts", "--json"), await desktop.pods("export"),
                       await desktop.pods("episodes", "--json")].map { $0.stdout + $0.stderr }
        let database = try Data(contentsOf: desktop.directory.appendingPathComponent("data/library.sqlite"))
        #expect(await desktop.signal(SIGTERM)?.status == 0)
        let everything = printed + sent.withLock { $0 } + [desktop.errorOutput(), String(decoding: database, as: UTF8.self)]
        #expect(sent.withLock { $0.count } > 3)
        #expect(!everything.contains { $0.contains("s3cret-pw") })
        #expect(!sent.withLock { $0 }.contains { $0.contains("/private/") }, "a private feed stays off the sync server")
    }

    /// A keyring the bus starts at the first call (GNOME Keyring's and
    /// KWallet's activation files) is used too, not passed over for the file.
    @Test func inTheSecretServiceWhenTheBusStartsItOnDemand() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let directory = try Fixtures.temporaryDirectory()
        // An activation file whose command tells the test it ran; the test then brings the
        // service up, and the bus hands it the call that started it.
        let services = directory.appendingPathComponent("share/dbus-1/services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        let started = directory.appendingPathComponent("secrets-started")
        try "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=/bin/sh -c 'echo $$ > \(started.path); exec sleep 120'\n"
            .write(to: services.appendingPathComponent("org.freedesktop.secrets.service"), atomically: true, encoding: .utf8)
        let bus = try await PrivateBus.start(environment: [
            "XDG_DATA_DIRS": directory.appendingPathComponent("share").path,
            "XDG_DATA_HOME": directory.appendingPathComponent("nothing").path])
        let activation = Task { () throws -> SecretServiceServer in
            try await waitFor(timeout: .seconds(20)) { FileManager.default.fileExists(atPath: started.path) }
            return try await SecretServiceServer.start(on: bus)
        }
        // The stand-in the bus started (it would sleep on past the test).
        defer {
            let pid = (try? String(contentsOf: started, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if let pid, pid > 1 { kill(pid, SIGKILL) }
        }
        let podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        let secrets = try await activation.value
        let result = await podsd.run(Fixtures.executable("pods"), ["subscribe", server.url("/private/feed.xml"), "--user", "alice",
                                                                   "--password-stdin"], input: "s3cret-pw\n")
        #expect(result.status == 0, "\(result)")
        #expect(secrets.stored.first.map { String(decoding: $0.secret, as: UTF8.self) } == "s3cret-pw")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/credentials.json").path))
    }
}
