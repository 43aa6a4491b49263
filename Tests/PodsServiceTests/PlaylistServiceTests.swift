import Foundation
import Glibc
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// Playlists on the real podsd: made with `pods playlist`, read by a real
/// MPRIS client (`gdbus`: `GetPlaylists` with counts, `ActivatePlaylist`),
/// followed live (`PlaylistChanged` as an episode is played), what plays
/// next once one is active, lists kept by hand, and bad input refused.
@Suite(.serialized, .timeLimit(.minutes(3))) struct PlaylistServiceTests {
    static let object = ["--session", "--dest", MPRIS.busName, "--object-path", MPRIS.objectPath.rawValue]

    static func gdbus(_ podsd: PodsdProcess, _ method: String, _ arguments: String...) async -> CommandResult {
        await podsd.run("gdbus", ["call"] + object + ["--method", method] + arguments, timeout: .seconds(15))
    }

    /// (guid, title, day of November, seconds)
    static func feed(_ server: LoopbackHTTPServer, _ title: String, _ items: [(String, String, Int, Int)]) -> Data {
        Data(("""
            <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>\(title)</title>
            """ + items.map { guid, title, day, seconds in
                """
                <item><title>\(title)</title><guid>\(guid)</guid><pubDate>\(String(format: "%02d", day)) Nov 2026 08:00:00 GMT</pubDate>
                  <itunes:duration>\(seconds)</itunes:duration><enclosure url="\(server.url("/a.mp3"))" type="audio/mpeg"/></item>
                """
            }.joined() + "</channel></rss>").utf8)
    }

    @Test func madeWithPodsReadAndPlayedByAnMPRISClientAndFollowedLive() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/news.xml", Self.feed(server, "News", [("n1", "News one", 1, 300), ("n2", "News two", 2, 400),
                                                                ("n3", "News three", 3, 3600), ("n4", "News four", 4, 200)]))
        server.setFile("/talk.xml", Self.feed(server, "Talk", [("t1", "Talk one", 5, 250)]))
        let podsd = try await PodsdProcess.start()
        // playerctld caches every MPRIS interface's properties (Playlists' changes once crashed it: playerctl#268).
        let playerctld = try podsd.bus.startPlayerctld()
        defer { kill(playerctld.processIdentifier, SIGKILL) }
        #expect(await podsd.pods("subscribe", server.url("/news.xml")).status == 0)
        #expect(await podsd.pods("subscribe", server.url("/talk.xml")).status == 0)
        var ids: [String: Int] = [:]
        for episode in try await LibraryClient(podsd.client).episodesJSON() { ids[episode["title"] as? String ?? ""] = episode["id"] as? Int }

        // Short news, oldest first: News one, News two, News four.
        let made = await podsd.pods("playlist", "create", "Short news", "--podcast", "News", "--unplayed", "--max-duration", "10m",
                                    "--order", "oldest")
        #expect(made.status == 0 && made.stdout.contains("3 episodes now"), "\(made)")
        let bad = await podsd.pods("playlist", "create", "Broken", "--title", "(news")
        #expect(bad.status == 1 && bad.stderr.contains("is not a regular expression") && bad.stderr.split(separator: "\n").count == 1, "\(bad)")
        #expect(await podsd.pods("playlist", "create", "short NEWS").stderr.contains("already"))
        let shown = await podsd.pods("playlist", "show", "Short news")
        #expect(shown.stdout == "1. \(ids["News one"]!)  News: News one\n2. \(ids["News two"]!)  News: News two\n3. \(ids["News four"]!)  News: News four\n",
                "\(shown)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("playlists", "--json").stdout.utf8)) as? [[String: Any]])
        let short = try #require(listed.first)
        #expect(short["name"] as? String == "Short news" && short["count"] as? Int == 3 && short["kind"] as? String == "rules")
        #expect((short["rules"] as? [String: Any])?["maxDuration"] as? Double == 600)
        let playlistID = try #require(short["id"] as? Int)

        // gdbus: the queue, the playlist (with its count), the podcasts.
        let all = await Self.gdbus(podsd, "org.mpris.MediaPlayer2.Playlists.GetPlaylists", "0", "10", "Alphabetical", "false")
        #expect(all.stdout.contains("(objectpath '/org/pods/queue', 'Up Next (0)', '')"), "\(all)")
        #expect(all.stdout.contains("('/org/pods/playlist/\(playlistID)', 'Short news (3)', "), "\(all)")
        let order = ["Up Next", "Short news", "'News'", "'Talk'"].map { all.stdout.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil } && zip(order, order.dropFirst()).allSatisfy { $0! < $1! }, "\(all)")
        let paged = await Self.gdbus(podsd, "org.mpris.MediaPlayer2.Playlists.GetPlaylists", "1", "2", "Alphabetical", "false")
        #expect(paged.stdout.contains("Short news (3)") && paged.stdout.contains("'News'") && !paged.stdout.contains("Up Next"), "\(paged)")
        let backwards = await Self.gdbus(podsd, "org.mpris.MediaPlayer2.Playlists.GetPlaylists", "0", "1", "Alphabetical", "true")
        #expect(backwards.stdout.contains("'Talk'") && !backwards.stdout.contains("News"), "\(backwards)")
        // Any window a client asks for is answered (once, a window past the end took podsd down).
        for (index, count, reversed) in [("0", "0", "false"), ("4", "10", "true"), ("3", "1", "true"), ("100", "10", "false"),
                                          ("4294967295", "4294967295", "true"), ("2", "4294967295", "false")] {
            let window = await Self.gdbus(podsd, "org.mpris.MediaPlayer2.Playlists.GetPlaylists", index, count, "Played", reversed)
            #expect(window.status == 0, "\(index), \(count), \(reversed): \(window)")
        }
        #expect(podsd.isRunning)
        let count = await podsd.run("gdbus", ["call"] + Self.object + ["--method", "org.freedesktop.DBus.Properties.Get",
                                                                        MPRIS.playlistsInterface, "PlaylistCount"])
        #expect(count.stdout.contains("<uint32 4>"), "\(count)")

        // Activated from gdbus: its first plays, it is the active playlist, and what plays next is its next.
        let signals = try await podsd.connection.signals(matching: DBusSignalMatch(
            sender: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playlistsInterface, member: "PlaylistChanged"))
        var changed = signals.makeAsyncIterator()
        let activated = await Self.gdbus(podsd, "org.mpris.MediaPlayer2.Playlists.ActivatePlaylist", "/org/pods/playlist/\(playlistID)")
        #expect(activated.status == 0, "\(activated)")
        #expect(try await podsd.client.status().episodeId == Int64(ids["News one"]!))
        try await waitFor(timeout: .seconds(10)) {
            let active = await podsd.run("gdbus", ["call"] + Self.object + ["--method", "org.freedesktop.DBus.Properties.Get",
                                                                             MPRIS.playlistsInterface, "ActivePlaylist"])
            return active.stdout.contains("(true, (objectpath '/org/pods/playlist/\(playlistID)', 'Short news (3)'")
        }
        #expect(try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("playlists", "--json").stdout.utf8))
                                as? [[String: Any]]).first?["active"] as? Bool == true)
        // Played, News one leaves the playlist: PlaylistChanged says so, with the count.
        #expect(await podsd.pods("mark", "played", String(ids["News one"]!)).status == 0)
        var names: [String] = []
        while names.last != "Short news (2)", let signal = await changed.next() {
            if case .structure(let fields) = signal.arguments.first, let name = fields[1].stringValue { names.append(name) }
        }
        #expect(names.last == "Short news (2)")
        // Next: the playlist's next, not the podcast's.
        #expect(await podsd.pods("next").status == 0)
        try await waitFor(timeout: .seconds(10)) { (try? await podsd.client.status().episodeId) == Int64(ids["News two"]!) }

        // A list kept by hand, played through the library interface; the queue, when empty, is one clear error.
        #expect(await podsd.pods("playlist", "create", "Mix", "--manual").status == 0)
        #expect(await podsd.pods("playlist", "add", "Mix", String(ids["Talk one"]!), String(ids["News three"]!)).status == 0)
        #expect(await podsd.pods("playlist", "show", "mix").stdout.contains("2. \(ids["News three"]!)  News: News three"))
        let refused = await podsd.pods("playlist", "add", "Short news", String(ids["Talk one"]!))
        #expect(refused.status == 1 && refused.stderr.contains("playlist of rules"), "\(refused)")
        #expect(await podsd.pods("playlist", "play", "Mix").status == 0)
        try await waitFor(timeout: .seconds(10)) { (try? await podsd.client.status().episodeId) == Int64(ids["Talk one"]!) }
        // While Mix plays next, the queue says it waits (REVIEW-4, N20), shown and when added to.
        try await waitFor(timeout: .seconds(5)) { await podsd.pods("queue").stdout.contains("The playlist Mix plays next, not the queue") }
        #expect(await podsd.pods("queue", "add", String(ids["News three"]!)).stdout.contains("The playlist Mix plays next"))
        #expect(await podsd.pods("queue", "clear").status == 0)
        let empty = await podsd.pods("playlist", "play", "queue")
        #expect(empty.status == 1 && empty.stderr.contains("the queue is empty"), "\(empty)")

        // Bad input from the bus: an unknown rule, a playlist that is not there.
        let unknown = await podsd.run("gdbus", ["call", "--session", "--dest", PodsBus.name, "--object-path", LibraryNames.objectPath.rawValue,
                                                "--method", "\(LibraryNames.interface).CreatePlaylist", "X", "{'colour': <'red'>}"])
        #expect(unknown.status != 0 && unknown.stderr.contains("InvalidArgs"), "\(unknown)")
        #expect(await podsd.pods("playlist", "delete", "Mix").status == 0)
        #expect(await Self.gdbus(podsd, "org.mpris.MediaPlayer2.Playlists.ActivatePlaylist", "/org/pods/playlist/999").status != 0)
        #expect(podsd.isRunning)
        // playerctld lived through every playlist change and still speaks for Pods.
        #expect(playerctld.isRunning)
        let proxied = await podsd.run("playerctl", ["-p", "playerctld", "metadata", "xesam:title"])
        #expect(proxied.status == 0 && proxied.stdout.contains("Talk one"), "\(proxied)")
    }
}
