import Foundation
import PodsClient
import PodsDBus
import PodsFeedParser
import PodsLibrary
import PodsTestSupport

/// `pods find` on gPodder's scale: a library of 53,000 episodes (200
/// podcasts, show notes of 110 words) with 2,000 transcripts of 600 lines
/// of 12 words, built through the library's own writes (so the index is
/// kept by its triggers as it would be), then 20 queries of one to three
/// words, common and rare, each run 5 times. The words are drawn as
/// language's are (Zipf's law over 20,000 made-up words, with "the" the
/// commonest and the topic words the queries ask for at ranks 2 to 3,000). Prints the index's build time
/// (as migration v18 builds it for a library that has none), its size, and
/// the queries' p50 and p95; then a real podsd on that library, playing,
/// answers MPRIS while `pods find` runs the same queries (Get(Position)
/// and PlayPause → PropertiesChanged p99, beside idle for as long).
///
///     swift run -c release pods-find-bench [--episodes 53000] [--transcripts 2000]
///     swift run -c release pods-find-bench --playlists [1000]   (`PlaylistScale`)
@main
struct FindBench {
    static let words = ["the", "podcast", "interview", "history", "science", "music", "politics", "quantum", "garden", "coffee",
                        "election", "volcano", "startup", "privacy", "linux", "recipe", "marathon", "galaxy", "poetry", "economy"]

    static let queries = ["the", "quantum", "linux privacy", "garden coffee recipe", "volcano", "marathon galaxy", "econ", "poetry the",
                          "history interview", "music", "start", "election politics", "science", "gal", "coffee", "the podcast",
                          "privacy", "recipe garden", "nothingmatchesthis", "interview history science"]

    static func main() async throws {
        let arguments = CommandLine.arguments
        func option(_ name: String, _ fallback: Int) -> Int {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? fallback
        }
        if let flag = arguments.firstIndex(of: "--playlists") {
            try await PlaylistScale.run(playlists: arguments.indices.contains(flag + 1) ? Int(arguments[flag + 1]) ?? 1000 : 1000)
            return
        }
        let root = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // The library goes where podsd's --data-dir will be, and is closed before podsd opens it.
        let directory = root.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try measureQueries(in: directory, episodes: option("--episodes", 53_000), transcripts: option("--transcripts", 2_000))
        try await measureMPRISDuringSearches(root: root)
    }

    /// Builds the library in `directory`, indexes it, and times the queries.
    static func measureQueries(in directory: URL, episodes episodeCount: Int, transcripts transcriptCount: Int) throws {
        let library = try Library(directory: directory)
        var random = SplitMix64(state: 7)
        var vocabulary = (0..<20_000).map { _ in
            String((0..<(3 + Int(random.next() % 8))).map { _ in Character(UnicodeScalar(UInt8(97 + random.next() % 26))) })
        }
        for (index, word) in words.enumerated() { vocabulary[index == 0 ? 0 : 1 + index * index * 8] = word }
        var cumulative: [Double] = []
        var total = 0.0
        for rank in 1...vocabulary.count {
            total += 1 / Double(rank)
            cumulative.append(total)
        }
        func word() -> String {
            let target = Double(random.next() % 1_000_000) / 1_000_000 * total
            var low = 0, high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return vocabulary[low]
        }
        func sentence(_ length: Int) -> String { (0..<length).map { _ in word() }.joined(separator: " ") }
        let built = ContinuousClock.now
        var episodeIDs: [Int64] = []
        let perPodcast = max(1, episodeCount / 200)
        for podcast in 0..<200 {
            var feed = FeedFixtures.feed((0..<perPodcast).map { "p\(podcast)e\($0)" }, titlePrefix: "Episode ")
            for index in feed.episodes.indices {
                feed.episodes[index].title = "Episode \(index): " + sentence(6)
                feed.episodes[index].description = sentence(110)
            }
            let stored = try library.subscribe(feedURL: "https://example.org/\(podcast).xml", feed: feed, etag: nil, lastModified: nil)
            episodeIDs += try library.episodes(podcastId: stored.id).map(\.id)
        }
        for (number, episode) in episodeIDs.prefix(transcriptCount).enumerated() {
            let cues = (0..<600).map { "{\"start\":\(Double($0) * 6),\"text\":\"\(sentence(12))\"}" }.joined(separator: ",")
            try library.saveTranscript(episode, url: "https://example.org/t\(number).vtt", format: "vtt", cuesJSON: "[\(cues)]")
        }
        let fillSeconds = (ContinuousClock.now - built) / .seconds(1)
        let indexed = ContinuousClock.now
        while try library.indexSearchText() > 0 {}
        let indexSeconds = (ContinuousClock.now - indexed) / .seconds(1)
        let rebuilt = ContinuousClock.now
        try library.rebuildSearchIndex()
        let rebuildSeconds = (ContinuousClock.now - rebuilt) / .seconds(1)
        library.checkpoint()

        var times: [Double] = []
        var found = 0
        for _ in 0..<5 {
            for query in queries {
                let start = ContinuousClock.now
                found += try library.search(query, limit: 20).count
                times.append((ContinuousClock.now - start) / .milliseconds(1))
            }
        }
        times.sort()
        let size = (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("library.sqlite").path)[.size]
            as? Int) ?? 0
        print(String(format: "find: %d episodes, %d transcripts of 600 lines; library written in %.1f s, then indexed in %.1f s; library.sqlite %.0f MB",
                     episodeIDs.count, min(transcriptCount, episodeIDs.count), fillSeconds, indexSeconds, Double(size) / 1e6))
        print(String(format: "find: the index built anew (its texts as migration v18 keeps them, then indexed) in %.1f s", rebuildSeconds))
        // The index's share: the same file without it, vacuumed.
        let copy = directory.appendingPathComponent("without")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        // Copied first, then stripped: the library itself keeps its index for podsd below.
        for (file, sql) in [(directory, "VACUUM INTO '\(copy.path)/library.sqlite';"),
                            (copy, "DROP TABLE searchText; DROP TABLE searchEntry; VACUUM;")] {
            let sqlite = Process()
            sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            sqlite.arguments = [file.appendingPathComponent("library.sqlite").path, sql]
            try? sqlite.run()
            sqlite.waitUntilExit()
        }
        let strippedSize = (try? FileManager.default.attributesOfItem(atPath: copy.appendingPathComponent("library.sqlite").path)[.size]
            as? Int) ?? 0
        print(String(format: "find: the index takes %.0f MB of the file (%.0f MB without it, vacuumed)", Double(size - strippedSize) / 1e6,
                     Double(strippedSize) / 1e6))
        print(String(format: "find: 20 queries × 5: p50 %.1f ms, p95 %.1f ms, slowest %.1f ms (%d hits)", times[times.count / 2],
                     times[times.count * 95 / 100], times.last ?? 0, found))
    }

    /// A real podsd on the library, playing, answers MPRIS while `pods find`
    /// runs each query five times (a process each, as a listener's would);
    /// then while `pods status` runs as many times (the clients' own cost,
    /// no search); then `Find` over a connection already open, as `pods ui`
    /// searches; and idle for as long as the searches took.
    static func measureMPRISDuringSearches(root: URL) async throws {
        let podsd = try await PodsdProcess.start(directory: root)
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)
        try await podsd.client.play()
        try await Task.sleep(for: .seconds(1))
        let environment = podsd.bus.environment
        func during(_ arguments: @escaping @Sendable (String) -> [String]) async throws
            -> (seconds: Double, failures: Int, getPosition: [Double], playPause: [Double]) {
            let start = ContinuousClock.now
            let measured = try await MPRISTiming.during(podsd.connection) {
                var failures = 0
                for _ in 0..<5 {
                    for query in queries {
                        let result = await Subprocess.run(Fixtures.executable("pods"), arguments(query), environment: environment,
                                                          timeout: .seconds(60))
                        if result.status != 0 {
                            if failures == 0 { print("find: pods \(arguments(query)) failed: \(result.stderr)") }
                            failures += 1
                        }
                    }
                }
                return failures
            }
            return ((ContinuousClock.now - start) / .seconds(1), measured.result, measured.getPosition, measured.playPause)
        }
        let searches = try await during { ["find", "--json", $0] }
        let clients = try await during { _ in ["status", "--json"] }
        // As pods ui's layout 0 searches: Find over a connection already open, no process started.
        let library = LibraryClient(PlayerClient(connection: try await DBusConnection.connect(address: podsd.bus.address)))
        let found = ContinuousClock.now
        let overBus = try await MPRISTiming.during(podsd.connection) {
            for _ in 0..<5 { for query in queries { _ = try await library.find(query, limit: 20) } }
        }
        let overBusSeconds = (ContinuousClock.now - found) / .seconds(1)
        let idle = try await MPRISTiming.during(podsd.connection) { try await Task.sleep(for: .seconds(searches.seconds)) }
        _ = await podsd.signal(SIGTERM)
        func p99(_ values: [Double]) -> String { String(format: "%.2f", MPRISTiming.percentile(values.sorted(), 0.99)) }
        print(String(format: "find: MPRIS p99, ms, while pods find ran the queries × 5 (%.1f s, %d failed) | while pods status ran as often "
                     + "(%.1f s) | while Find ran them over an open connection (%.1f s) | idle:", searches.seconds, searches.failures,
                     clients.seconds, overBusSeconds))
        print("find:   Get(Position) \(p99(searches.getPosition)) | \(p99(clients.getPosition)) | \(p99(overBus.getPosition)) | "
              + p99(idle.getPosition))
        print("find:   PlayPause → PropertiesChanged \(p99(searches.playPause)) | \(p99(clients.playPause)) | \(p99(overBus.playPause)) | "
              + p99(idle.playPause))
        print("find:   samples \(searches.getPosition.count)+\(searches.playPause.count) | \(clients.getPosition.count)+"
              + "\(clients.playPause.count) | \(overBus.getPosition.count)+\(overBus.playPause.count) | "
              + "\(idle.getPosition.count)+\(idle.playPause.count)")
    }
}
