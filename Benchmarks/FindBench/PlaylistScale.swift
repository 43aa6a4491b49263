import Foundation
import PodsClient
import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsSettings
import PodsTestSupport

/// `pods-find-bench --playlists [N]`: the library's other reader at scale
/// (ADVERSARIAL-5, 2): N title playlists (1,000 by default, the most a
/// library keeps) over 50,000 episodes (50 podcasts of 1,000), their
/// patterns words, alternations, classes and repeats over made-up titles.
/// Prints the time to make them (each matched against every title), the
/// listing in process after a change and unchanged, then a real podsd's
/// MPRIS `GetPlaylists` for all of them (the first after start, after a
/// played mark, unchanged) and `pods playlists --json`; and what plays next
/// in a title playlist (the library's query, as an episode's end asks). Beside them, in the same run, the floor of the build
/// before's listing: every title matched once per playlist per listing,
/// as its SQL did (measured on 20 patterns, times N / 20; its SQLite
/// overhead not counted). MPRIS's timeout is 25 s.
enum PlaylistScale {
    static func run(playlists count: Int) async throws {
        let root = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("data")
        var random = SplitMix64(state: 11)
        let vocabulary = (0..<3000).map { _ in
            String((0..<(3 + Int(random.next() % 7))).map { _ in Character(UnicodeScalar(UInt8(97 + random.next() % 26))) })
        }
        func word() -> String { vocabulary[Int(random.next() % UInt64(vocabulary.count))] }

        var titles: [String] = []
        let library = try Library(directory: directory)
        let filled = ContinuousClock.now
        for podcast in 0..<50 {
            var feed = FeedFixtures.feed((0..<1000).map { "p\(podcast)e\($0)" }, titlePrefix: "Episode ")
            for index in feed.episodes.indices {
                feed.episodes[index].title = "Episode \(index): " + (0..<6).map { _ in word() }.joined(separator: " ")
                titles.append(feed.episodes[index].title)
            }
            _ = try library.subscribe(feedURL: "https://example.org/\(podcast).xml", feed: feed, etag: nil, lastModified: nil)
        }
        try library.matchTitles()
        let fillSeconds = (ContinuousClock.now - filled) / .seconds(1)
        let patterns = (0..<count).map { index -> String in
            switch index % 5 {
            case 0: word()
            case 1: "(\(word())|\(word()))"
            case 2: "^episode \(index % 100)\\d"
            case 3: "\(word()).*\(word())"
            default: "[\(word().prefix(3))]{3}\\s+\(word().prefix(2))"
            }
        }
        let made = ContinuousClock.now
        var ids: [Int64] = []
        for (index, pattern) in patterns.enumerated() {
            ids.append(try library.createPlaylist("Titles \(index)", rules: PlaylistRules(title: pattern)).id)
        }
        let makeSeconds = (ContinuousClock.now - made) / .seconds(1)

        // The build before: each listing matched every title against every playlist's pattern.
        let sample = patterns.prefix(20).compactMap { try? TitlePattern($0) }
        let floorStart = ContinuousClock.now
        var matched = 0
        for pattern in sample { matched += titles.reduce(0) { $0 + (pattern.matches($1) ? 1 : 0) } }
        let floorSeconds = (ContinuousClock.now - floorStart) / .seconds(1) * Double(count) / Double(max(1, sample.count))

        func timed(_ body: () throws -> Void) rethrows -> Double {
            let start = ContinuousClock.now
            try body()
            return (ContinuousClock.now - start) / .milliseconds(1)
        }
        let episode = try library.episodes(podcastId: 1).first?.id ?? 1
        try library.markCompleted(episode, true)
        let changed = try timed { _ = try library.playlists() }
        let unchanged = try timed { _ = try library.playlists() }
        let total = try library.playlists().reduce(0) { $0 + $1.count }
        // What plays next in each of the first 20, from its first episode (as an episode's end asks).
        var nexts: [Double] = []
        for id in ids.prefix(20) {
            guard let head = try library.playlistEpisodes(id, offset: 0, limit: 1).first else { continue }
            try library.setActivePlaylist(id)
            nexts.append(try timed { _ = try library.nextEpisode(after: head.id) })
        }
        try library.setActivePlaylist(nil)
        nexts.sort()
        library.checkpoint()
        print(String(format: "playlists: %d episodes written in %.1f s; %d title playlists made in %.1f s (%.1f ms each, "
                     + "every title matched); they hold %d episodes in all", titles.count, fillSeconds, count, makeSeconds,
                     makeSeconds * 1000 / Double(max(1, count)), total))
        print(String(format: "playlists: in process, all %d listed with counts: %.0f ms after a played mark, %.1f ms unchanged; "
                     + "the build before's floor: %.1f s a listing (%d patterns timed, %d matches)", count, changed, unchanged,
                     floorSeconds, sample.count, matched))
        print(String(format: "playlists: what plays next in a title playlist: median %.2f ms, slowest %.2f ms (%d playlists)",
                     nexts.isEmpty ? 0 : nexts[nexts.count / 2], nexts.last ?? 0, nexts.count))

        // A real podsd on that library.
        let podsd = try await PodsdProcess.start(directory: root)
        defer { _ = podsd }
        func getPlaylists() async throws -> (milliseconds: Double, entries: Int) {
            let start = ContinuousClock.now
            let reply = try await podsd.connection.call(
                destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playlistsInterface, member: "GetPlaylists",
                arguments: [.uint32(0), .uint32(UInt32(count + 1)), .string("Alphabetical"), .bool(false)])
            let entries = if case .array(_, let items) = reply.first { items.count } else { -1 }
            return ((ContinuousClock.now - start) / .milliseconds(1), entries)
        }
        let first = try await getPlaylists()
        let client = LibraryClient(podsd.client)
        try await client.mark(episode: episode, played: false)
        let afterMark = try await getPlaylists()
        var warm: [Double] = []
        for _ in 0..<5 { warm.append(try await getPlaylists().milliseconds) }
        let listStart = ContinuousClock.now
        let listed = await Subprocess.run(Fixtures.executable("pods"), ["playlists", "--json"], environment: podsd.bus.environment,
                                          timeout: .seconds(120))
        let listSeconds = (ContinuousClock.now - listStart) / .seconds(1)
        _ = await podsd.signal(SIGTERM)
        print(String(format: "playlists: podsd, MPRIS GetPlaylists of %d entries: %.0f ms the first after start, %.0f ms after a played "
                     + "mark, %.1f ms unchanged (median of 5); pods playlists --json %.2f s (status %d)",
                     afterMark.entries, first.milliseconds, afterMark.milliseconds, warm.sorted()[2], listSeconds, listed.status))
    }
}
