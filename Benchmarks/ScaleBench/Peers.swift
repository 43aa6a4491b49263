import Foundation
import PodsTestSupport

/// The programs Pods is measured beside.
enum Peers {
    /// Seconds for `curl --parallel --parallel-max 8` to GET every URL in full.
    static func curl(_ urls: [String]) async throws -> Double {
        let arguments = ["--parallel", "--parallel-max", "8", "--silent", "--fail"] + urls.flatMap { ["--output", "/dev/null", $0] }
        let (seconds, result) = await timed("curl", arguments)
        guard result.status == 0 else { throw TestSupportError("curl failed: \(result.stderr)") }
        return seconds
    }

    /// gPodder's command line, when installed.
    static func gpo() -> GPO? {
        let path = Subprocess.resolve("gpo")
        return FileManager.default.isExecutableFile(atPath: path) ? GPO(path: path) : nil
    }

    /// Runs a command to its end; its wall time in seconds.
    static func timed(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                      timeout: Duration = .seconds(900)) async -> (Double, CommandResult) {
        let start = ContinuousClock.now
        let result = await Subprocess.run(executable, arguments, environment: environment, timeout: timeout)
        return (MPRISTiming.milliseconds(ContinuousClock.now - start) / 1000, result)
    }
}

/// The same steps with gPodder 3's `gpo`, its peak RSS from `/usr/bin/time`.
struct GPO {
    let path: String

    func run(_ workload: inout ScaleWorkload, root: URL, opml: URL, work: URL, into table: inout ResultTable) async throws {
        // The server back to the first state: every feed as it was before Pods' steps.
        try FeedFiles.writeAll(workload, root: root)
        let home = work.appendingPathComponent("gpodder-home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let environment = ["GPODDER_HOME": home.path, "GPODDER_DOWNLOAD_DIR": home.appendingPathComponent("downloads").path]
        var peak = 0.0
        func step(_ name: String, _ arguments: [String]) async throws {
            let usage = work.appendingPathComponent("gpo-usage")
            let (seconds, result) = await Peers.timed("/usr/bin/time", ["-f", "%M", "-o", usage.path, path] + arguments,
                                                      environment: environment)
            guard result.status == 0 else { throw TestSupportError("gpo \(arguments) failed: \(result.stderr.suffix(500))") }
            let kib = Double((try? String(contentsOf: usage, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            peak = max(peak, kib / 1024)
            table.set(name, gpo: seconds)
            Swift.print("gpo \(arguments.first ?? ""): " + String(format: "%.2f s", seconds))
        }
        try await step(ScaleSteps.importing, ["import", opml.path])
        try await step(ScaleSteps.unchanged, ["update"])
        try FeedFiles.touchAll(workload, root: root, round: 10)
        try await step(ScaleSteps.touched, ["update"])
        try FeedFiles.growTwenty(&workload, root: root)
        try await step(ScaleSteps.grown, ["update"])
        table.set(ScaleSteps.peakRSS, gpo: peak)
        let database = home.appendingPathComponent("Database")
        let size = (try? FileManager.default.attributesOfItem(atPath: database.path)[.size] as? Int) ?? nil
        if let size { table.set(ScaleSteps.librarySize, gpo: Double(size) / 1e6) }
        let count = await Subprocess.run("python3", ["-c", "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("
                                                     + "'SELECT COUNT(*) FROM episode').fetchone()[0])", database.path])
        table.notes.append("gpo stores \(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) episodes, Pods all of them")
    }
}

/// The step names, shared by both programs' rows.
enum ScaleSteps {
    static let importing = "import 200 feeds (first fetch), s"
    static let unchanged = "refresh, nothing changed (200 × 304), s"
    static let touched = "refresh, every ETag changed, same bytes, s"
    static let grown = "refresh, 20 feeds gained 3 episodes, s"
    static let peakRSS = "peak RSS over import and refreshes, MiB"
    static let settledRSS = "RSS 2 s after the last refresh, MiB"
    static let listing = "`pods episodes --json`, whole library, s"
    static let listingRSS = "RSS growth while listing, MiB"
    static let getRefreshIdle = "Get(Position) p99 idle, as long as the refreshes below, ms"
    static let toggleRefreshIdle = "PlayPause → PropertiesChanged p99 idle, as long as the refreshes below, ms"
    static let getDuringRefresh = "Get(Position) p99 during full refreshes, ms"
    static let toggleDuringRefresh = "PlayPause → PropertiesChanged p99 during full refreshes, ms"
    static let getDuringCurl = "Get(Position) p99 while curl fetches the same feeds at that pace (no podsd work), ms"
    static let toggleDuringCurl = "PlayPause → PropertiesChanged p99 while curl fetches the same feeds at that pace (no podsd work), ms"
    static let getIdle = "Get(Position) p99 idle, as long as the listings, ms"
    static let toggleIdle = "PlayPause → PropertiesChanged p99 idle, as long as the listings, ms"
    static let getDuringListing = "Get(Position) p99 during the listings, ms"
    static let toggleDuringListing = "PlayPause → PropertiesChanged p99 during the listings, ms"
    static let librarySize = "library file, MB"
    static let startUp = "start-up with the library: exec to first answer, ms"
    static let idleRSS = "RSS idle after start-up, MiB"
}

/// The served feed files: written, touched, grown.
enum FeedFiles {
    static func writeAll(_ workload: ScaleWorkload, root: URL) throws {
        for feed in workload.feeds { try write(feed, workload, root: root) }
    }

    /// New modification times (so new ETags) on every feed, bytes unchanged;
    /// each `round` gives other times than the rounds before.
    static func touchAll(_ workload: ScaleWorkload, root: URL, round: Int) throws {
        let date = Date().addingTimeInterval(Double(round) * 100)
        for feed in workload.feeds {
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url(feed, root).path)
        }
    }

    /// Three new episodes at the top of 20 feeds (every tenth).
    static func growTwenty(_ workload: inout ScaleWorkload, root: URL) throws {
        for index in stride(from: 0, to: workload.feeds.count, by: max(1, workload.feeds.count / 20)).prefix(20) {
            workload.grow(index, by: 3)
            try write(workload.feeds[index], workload, root: root)
        }
    }

    private static func write(_ feed: ScaleWorkload.Feed, _ workload: ScaleWorkload, root: URL) throws {
        try workload.xml(feed).write(to: url(feed, root))
    }

    private static func url(_ feed: ScaleWorkload.Feed, _ root: URL) -> URL {
        root.appendingPathComponent(String(feed.path.dropFirst()))
    }
}
