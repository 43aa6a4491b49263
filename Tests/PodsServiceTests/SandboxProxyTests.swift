import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// Least privilege on the bus: a sandbox let talk to the MPRIS name (as
/// Flatpak grants media applets and players) reaches MPRIS and nothing of
/// the library, the settings or the sync, under any name podsd answers to.
@Suite(.timeLimit(.minutes(10))) struct SandboxProxyTests {
    @Test func throughAProxyThatMayTalkToMPRISOnlyMPRISAnswers() async throws {
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", Fixtures.data("sample-podcast.xml").absoluteString).status == 0)
        let proxy = try await SandboxProxy.start(bus: podsd.bus, talk: [MPRIS.busName])
        func sandboxed(_ tool: String, _ arguments: [String]) async -> CommandResult {
            await Subprocess.run(tool, arguments, environment: proxy.environment)
        }

        // MPRIS works through the proxy, with the tools a desktop uses.
        #expect(await sandboxed("playerctl", ["-p", "pods", "open", Fixtures.sampleMP3.absoluteString]).status == 0)
        try await waitFor(timeout: .seconds(10)) { await sandboxed("playerctl", ["-p", "pods", "status"]).stdout.trimmed == "Playing" }
        #expect(await sandboxed("playerctl", ["-p", "pods", "pause"]).status == 0)
        try await waitFor(timeout: .seconds(10)) { await podsd.playerctl("status").stdout.trimmed == "Paused" }
        let identity = await sandboxed("gdbus", ["call", "--session", "--dest", MPRIS.busName, "--object-path", MPRIS.objectPath.rawValue,
                                                 "--method", "org.freedesktop.DBus.Properties.Get", MPRIS.rootInterface, "Identity"])
        #expect(identity.stdout.contains("Pods"), "\(identity)")

        // Every name podsd answers to: the two well-known ones and the unique names of its connections.
        let mprisOwner = try await owner(of: MPRIS.busName, podsd)
        let podsOwner = try await owner(of: PodsBus.name, podsd)
        let listingPeer = try #require(try await podsd.connection.call(
            destination: PodsBus.name, path: LibraryNames.objectPath, interface: LibraryNames.interface,
            member: LibraryMethod.listingPeer.name).first?.stringValue)
        #expect(Set([mprisOwner, podsOwner, listingPeer]).count == 3)
        let reaches: [(path: String, method: String, arguments: [String])] = [
            (LibraryNames.objectPath.rawValue, "\(LibraryNames.interface).\(LibraryMethod.listPodcasts.name)", ["", "10"]),
            (LibraryNames.objectPath.rawValue, "\(LibraryNames.interface).\(LibraryMethod.syncStatus.name)", []),
            (LibraryNames.objectPath.rawValue, "\(LibraryNames.interface).\(LibraryMethod.subscribe.name)", ["file:///etc/passwd"]),
            (PlayerNames.objectPath.rawValue, "\(PlayerNames.interface).\(PlayerMethod.config.name)", ["", ""]),
            (PlayerNames.objectPath.rawValue, "\(PlayerNames.interface).\(PlayerMethod.setConfig.name)", ["", "audio-sink", "filesink"]),
            (PlayerNames.objectPath.rawValue, "\(PlayerNames.interface).\(PlayerMethod.bookmark.name)", ["through the proxy"]),
            (LibraryNames.objectPath.rawValue, "\(LibraryNames.interface).\(LibraryMethod.listBookmarks.name)", ["0", "", "10"]),
        ]
        for destination in [MPRIS.busName, mprisOwner, PodsBus.name, podsOwner, listingPeer] {
            for reach in reaches {
                let call = ["call", "--session", "--dest", destination, "--object-path", reach.path, "--method", reach.method] + reach.arguments
                let refused = await sandboxed("gdbus", call)
                #expect(refused.status != 0 && refused.stderr.contains("Error"), "through the proxy, \(destination) \(reach.method): \(refused)")
            }
        }
        // On the bus itself the library answers under its own name (so the refusals above are the proxy's),
        // and the MPRIS connection serves no object of it.
        let direct = await podsd.run("gdbus", ["call", "--session", "--dest", PodsBus.name, "--object-path", PlayerNames.objectPath.rawValue,
                                               "--method", "\(PlayerNames.interface).\(PlayerMethod.config.name)", "", "speed"])
        #expect(direct.status == 0, "\(direct)")
        let onMPRIS = await podsd.run("gdbus", ["call", "--session", "--dest", MPRIS.busName, "--object-path", LibraryNames.objectPath.rawValue,
                                                "--method", "\(LibraryNames.interface).\(LibraryMethod.syncStatus.name)"])
        #expect(onMPRIS.status != 0 && onMPRIS.stderr.contains("UnknownObject"), "\(onMPRIS)")
        let tree = await podsd.run("gdbus", ["introspect", "--session", "--dest", MPRIS.busName, "--object-path", "/", "--recurse"])
        #expect(tree.status == 0 && !tree.stdout.contains("org.pods.") && tree.stdout.contains(MPRIS.playerInterface), "\(tree)")

        // `pods` in the sandbox says it cannot reach the library; nothing it asked for happened.
        let pods = await sandboxed(Fixtures.executable("pods"), ["config", "audio-sink", "filesink"])
        #expect(pods.status != 0, "\(pods)")
        #expect(await podsd.pods("config", "audio-sink").stdout.contains("filesink") == false)
        #expect(podsd.isRunning)
    }

    private func owner(of name: String, _ podsd: PodsdProcess) async throws -> String {
        try #require(try await podsd.connection.call(
            destination: "org.freedesktop.DBus", path: DBusObjectPath(validLiteral: "/org/freedesktop/DBus"),
            interface: "org.freedesktop.DBus", member: "GetNameOwner", arguments: [.string(name)]).first?.stringValue)
    }
}

/// A sandbox granted Pods' own name too (a Flatpak'd client of the library,
/// or a key binding in one): bookmarks and playlists work through it.
@Suite(.timeLimit(.minutes(5))) struct SandboxGrantTests {
    @Test func throughAProxyThatMayTalkToPodsBookmarksAndPlaylistsWork() async throws {
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", Fixtures.data("sample-podcast.xml").absoluteString).status == 0)
        let proxy = try await SandboxProxy.start(bus: podsd.bus, talk: [MPRIS.busName, PodsBus.name])
        func sandboxed(_ arguments: String...) async -> CommandResult {
            await Subprocess.run(Fixtures.executable("pods"), arguments, environment: proxy.environment)
        }
        let episode = try #require(try await LibraryClient(podsd.client).episodesJSON().first?["id"] as? Int)
        #expect(await podsd.pods("play", String(episode)).status == 0)
        try await waitFor(timeout: .seconds(10)) { (try? await podsd.client.status().state) == .playing }

        let taken = await sandboxed("bookmark", "from the sandbox")
        #expect(taken.status == 0 && taken.stdout.hasPrefix("Bookmark "), "\(taken)")
        let listed = await sandboxed("bookmarks", "--json")
        #expect(listed.status == 0 && listed.stdout.contains("\"note\":\"from the sandbox\""), "\(listed)")
        let made = await sandboxed("playlist", "create", "Sandboxed", "--unplayed")
        #expect(made.status == 0, "\(made)")
        let shown = await sandboxed("playlist", "show", "Sandboxed", "--json")
        #expect(shown.status == 0 && shown.stdout.hasPrefix("["), "\(shown)")
        let stats = await sandboxed("stats", "--json")
        #expect(stats.status == 0 && stats.stdout.contains("\"sessions\""), "\(stats)")
        #expect(podsd.isRunning)
    }
}
