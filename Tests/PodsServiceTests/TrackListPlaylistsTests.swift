import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// MPRIS TrackList and Playlists, driven by gdbus and followed by a client
/// that rebuilds the list from the signals, with playerctld on the bus.
@Suite(.timeLimit(.minutes(10))) struct TrackListPlaylistsTests {
    static let object = ["--session", "--dest", MPRIS.busName, "--object-path", MPRIS.objectPath.rawValue]

    static func gdbus(_ podsd: PodsdProcess, _ method: String, _ arguments: String...) async -> CommandResult {
        await podsd.run("gdbus", ["call"] + object + ["--method", method] + arguments, timeout: .seconds(15))
    }

    static func path(_ id: Int) -> String { "/org/pods/episode/\(id)" }

    /// What a client that follows TrackList's signals knows.
    actor Follower {
        var tracks: [String] = []
        var replaced = 0, added = 0, removed = 0, invalidated = 0
        var changedTitles: [String: String] = [:]
        var playlistNames: [String] = []

        func take(_ signal: DBusSignal) {
            switch signal.member {
            case "TrackListReplaced":
                tracks = signal.arguments.first?.arrayValue?.compactMap { $0.objectPathValue?.rawValue } ?? []
                replaced += 1
            case "TrackAdded":
                let id = signal.arguments.first?.stringKeyedDictionary?["mpris:trackid"]?.objectPathValue?.rawValue ?? "?"
                let after = signal.arguments.last?.objectPathValue?.rawValue
                let index = after == MPRIS.noTrack.rawValue ? 0 : (tracks.firstIndex(of: after ?? "") ?? tracks.count - 1) + 1
                tracks.insert(id, at: min(index, tracks.count))
                added += 1
            case "TrackRemoved":
                tracks.removeAll { $0 == signal.arguments.first?.objectPathValue?.rawValue }
                removed += 1
            case "TrackMetadataChanged":
                if let id = signal.arguments.first?.objectPathValue?.rawValue,
                   let title = signal.arguments.last?.stringKeyedDictionary?["xesam:title"]?.stringValue {
                    changedTitles[id] = title
                }
            case "PlaylistChanged":
                if case .structure(let fields) = signal.arguments.first, fields.count == 3, let name = fields[1].stringValue {
                    playlistNames.append(name)
                }
            case "PropertiesChanged" where signal.arguments.first?.stringValue == MPRIS.trackListInterface:
                if signal.arguments.last?.stringArrayValue == ["Tracks"] { invalidated += 1 }
            default:
                break
            }
        }
    }

    static func tracks(_ podsd: PodsdProcess) async throws -> [String] {
        let reply = try await podsd.connection.call(destination: MPRIS.busName, path: MPRIS.objectPath,
                                                    interface: "org.freedesktop.DBus.Properties", member: "Get",
                                                    arguments: [.string(MPRIS.trackListInterface), .string("Tracks")])
        return reply.first?.unwrapped.arrayValue?.compactMap { $0.objectPathValue?.rawValue } ?? []
    }

    /// Waits until the follower's list is `expected` and matches `Tracks`.
    static func settle(_ podsd: PodsdProcess, _ follower: Follower, _ expected: [Int]) async throws {
        let want = expected.map(path)
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if await follower.tracks == want, try await tracks(podsd) == want { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("tracks \(try await tracks(podsd)), follower \(await follower.tracks), wanted \(want)")
    }

    @Test func trackListAndPlaylistsFollowTheQueueWithPlayerctldAlive() async throws {
        let files = Dictionary(uniqueKeysWithValues: (1...5).map { ("/\($0).mp3", Fixtures.sampleMP3) })
        let server = try LoopbackHTTPServer(files: files)
        defer { server.stop() }
        server.setFile("/zeta.xml", sampleFeed((1...4).map { ("z\($0)", "Zeta \($0)", $0, server.url("/\($0).mp3")) }, title: "Zeta Show"))
        server.setFile("/alpha.xml", sampleFeed([("a1", "Alpha 1", 5, server.url("/5.mp3"))], title: "alpha Show"))
        let podsd = try await PodsdProcess.start()
        let playerctld = try podsd.bus.startPlayerctld()
        defer { kill(playerctld.processIdentifier, SIGKILL) }
        #expect(await podsd.pods("subscribe", server.url("/zeta.xml")).status == 0)
        #expect(await podsd.pods("subscribe", server.url("/alpha.xml")).status == 0)
        let episodes = try await LibraryClient(podsd.client).episodesJSON()
        func id(_ title: String) -> Int { episodes.first { $0["title"] as? String == title }?["id"] as? Int ?? -1 }
        let (z1, z2, z3, z4) = (id("Zeta 1"), id("Zeta 2"), id("Zeta 3"), id("Zeta 4"))

        let follower = Follower()
        let signals = try await podsd.connection.signals(matching: DBusSignalMatch(sender: MPRIS.busName, path: MPRIS.objectPath))
        let following = Task { for await signal in signals { await follower.take(signal) } }
        defer { following.cancel() }

        #expect(await podsd.pods("play", String(z1)).status == 0)
        try await Self.settle(podsd, follower, [z1])
        #expect(await podsd.pods("queue", "add", String(z2), String(z3)).status == 0)
        try await Self.settle(podsd, follower, [z1, z2, z3])

        // AddTrack of a library episode (by pods:episode/ and by its audio's URL), after a given track.
        var result = await Self.gdbus(podsd, "org.mpris.MediaPlayer2.TrackList.AddTrack", "pods:episode/\(z4)", Self.path(z2), "false")
        #expect(result.status == 0, "\(result)")
        try await Self.settle(podsd, follower, [z1, z2, z4, z3])
        #expect(await follower.added >= 1)
        result = await Self.gdbus(podsd, "org.mpris.MediaPlayer2.TrackList.RemoveTrack", Self.path(z4))
        try await Self.settle(podsd, follower, [z1, z2, z3])
        #expect(await follower.removed >= 1)
        result = await Self.gdbus(podsd, "org.mpris.MediaPlayer2.TrackList.AddTrack", server.url("/4.mp3"),
                                  MPRIS.noTrack.rawValue, "false")
        #expect(result.status == 0, "\(result)")
        try await Self.settle(podsd, follower, [z1, z4, z2, z3])
        // The queue pods shows is the same queue.
        let queue = try await LibraryClient(podsd.client).queueJSON().compactMap { $0["id"] as? Int }
        #expect(queue == [z4, z2, z3])

        // Metadata for each listed id; GoTo plays one.
        let metadata = try await podsd.connection.call(
            destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.trackListInterface, member: "GetTracksMetadata",
            arguments: [.array(.objectPath, [z1, z2, 99999].compactMap { DBusObjectPath(Self.path($0)) }.map(DBusValue.objectPath))])
        let items = metadata.first?.arrayValue?.compactMap(\.stringKeyedDictionary) ?? []
        #expect(items.count == 2)
        #expect(items.last?["mpris:trackid"]?.objectPathValue?.rawValue == Self.path(z2))
        #expect(items.last?["xesam:title"] == .string("Zeta 2") && items.last?["xesam:album"] == .string("Zeta Show"))
        result = await Self.gdbus(podsd, "org.mpris.MediaPlayer2.TrackList.GoTo", Self.path(z2))
        #expect(result.status == 0, "\(result)")
        try await Self.settle(podsd, follower, [z2, z4, z3])
        #expect(try await podsd.client.status().episodeId == Int64(z2))
        #expect(await follower.invalidated >= 5)

        // A refresh that renames a listed episode: TrackMetadataChanged with its new title.
        server.setFile("/zeta.xml", sampleFeed((1...4).map { ("z\($0)", $0 == 3 ? "Zeta three" : "Zeta \($0)", $0, server.url("/\($0).mp3")) },
                                              title: "Zeta Show"))
        #expect(await podsd.pods("refresh").status == 0)
        try await waitFor { await follower.changedTitles[Self.path(z3)] == "Zeta three" }

        // Bad input: a D-Bus error each, nothing changes.
        for (method, arguments) in [
            ("GoTo", [Self.path(99999)]),
            ("AddTrack", ["ftp://example.com/a.mp3", MPRIS.noTrack.rawValue, "false"]),
            ("AddTrack", ["https://example.com/not-in-the-library.mp3", MPRIS.noTrack.rawValue, "false"]),
            ("AddTrack", ["pods:episode/99999", MPRIS.noTrack.rawValue, "false"]),
        ] {
            let bad = await podsd.run("gdbus", ["call"] + Self.object + ["--method", "org.mpris.MediaPlayer2.TrackList." + method] + arguments)
            #expect(bad.status != 0 && bad.stderr.contains("GDBus.Error"), "\(method) \(arguments): \(bad)")
        }
        try await Self.settle(podsd, follower, [z2, z4, z3])

        // Playlists: the podcasts, in each order; activating one plays it.
        let alphabetical = await Self.gdbus(podsd, "org.mpris.MediaPlayer2.Playlists.GetPlaylists", "0", "10", "Alphabetical", "false")
        #expect(alphabetical.stdout.contains("'alpha Show'") && alphabetical.stdout.range(of: "alpha Show")!.lowerBound
                < alphabetical.stdout.range(of: "Zeta Show")!.lowerBound, "\(alphabetical)")
        let created = await Self.gdbus(podsd, "org.mpris.MediaPlayer2.Playlists.GetPlaylists", "0", "1", "Created", "true")
        #expect(created.stdout.contains("alpha Show") && !created.stdout.contains("Zeta"), "\(created)")
        #expect(await Self.gdbus(podsd, "org.mpris.MediaPlayer2.Playlists.GetPlaylists", "0", "10", "User", "false").status != 0)
        let count = await podsd.run("gdbus", ["call"] + Self.object + ["--method", "org.freedesktop.DBus.Properties.Get",
                                                                        MPRIS.playlistsInterface, "PlaylistCount"])
        #expect(count.stdout.contains("<uint32 3>"), "\(count)")  // the queue and the two podcasts
        let alphaPodcast = try await LibraryClient(podsd.client).podcastsJSON().first { $0["title"] as? String == "alpha Show" }?["id"] as? Int
        result = await Self.gdbus(podsd, "org.mpris.MediaPlayer2.Playlists.ActivatePlaylist", "/org/pods/podcast/\(alphaPodcast ?? -1)")
        #expect(result.status == 0, "\(result)")
        #expect(try await podsd.client.status().episodeId == Int64(id("Alpha 1")))
        try await waitFor {
            let active = await podsd.run("gdbus", ["call"] + Self.object + ["--method", "org.freedesktop.DBus.Properties.Get",
                                                                             MPRIS.playlistsInterface, "ActivePlaylist"])
            return active.stdout.contains("(true, (objectpath '/org/pods/podcast/\(alphaPodcast ?? -1)', 'alpha Show'")
        }
        #expect(await Self.gdbus(podsd, "org.mpris.MediaPlayer2.Playlists.ActivatePlaylist", "/org/pods/podcast/999").status != 0)
        // A podcast renamed by its feed: PlaylistChanged with the new name.
        server.setFile("/alpha.xml", sampleFeed([("a1", "Alpha 1", 5, server.url("/5.mp3"))], title: "Alpha, renamed"))
        #expect(await podsd.pods("refresh").status == 0)
        try await waitFor { await follower.playlistNames.contains("Alpha, renamed") }

        // playerctld lived through all of it and still speaks for Pods.
        #expect(playerctld.isRunning)
        let proxied = await podsd.run("playerctl", ["-p", "playerctld", "metadata", "xesam:title"])
        #expect(proxied.status == 0 && proxied.stdout.trimmed == "Alpha 1", "\(proxied)")
        #expect(await podsd.run("playerctl", ["-p", "playerctld", "status"]).stdout.trimmed == "Playing")
        #expect(podsd.isRunning)
    }
}
