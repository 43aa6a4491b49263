import Foundation
import PodsClient
import PodsDBus
import PodsTestSupport

/// The workload's steps through a real podsd (release build, private bus)
/// driven by the real `pods`.
struct PodsRun {
    let root: URL
    let opml: URL
    let work: URL

    func run(_ workload: inout ScaleWorkload, into table: inout ResultTable) async throws {
        let directory = work.appendingPathComponent("pods")
        let bus = try await PrivateBus.start()
        let podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        func step(_ name: String, goal: String, _ arguments: String...) async throws {
            let (seconds, result) = await Peers.timed(Fixtures.executable("pods"), arguments, environment: bus.environment)
            guard result.status == 0 else { throw TestSupportError("pods \(arguments) failed: \(result.stderr)") }
            table.set(name, pods: seconds, goal: goal)
            print("pods \(arguments.joined(separator: " ")): " + String(format: "%.2f s, podsd peak RSS so far %.0f MiB", seconds,
                                                                      ProcessMemory.peakMiB(of: podsd.processIdentifier)))
        }
        try await step(ScaleSteps.importing, goal: "≤ 3", "import", opml.path)
        try await step(ScaleSteps.unchanged, goal: "≤ 0.3", "refresh")
        try FeedFiles.touchAll(workload, root: root, round: 1)
        try await step(ScaleSteps.touched, goal: "≤ 3", "refresh")
        try FeedFiles.growTwenty(&workload, root: root)
        try await step(ScaleSteps.grown, goal: "≤ 0.5", "refresh")
        table.set(ScaleSteps.peakRSS, pods: ProcessMemory.peakMiB(of: podsd.processIdentifier), goal: "≤ 100")
        try await Task.sleep(for: .seconds(2))
        table.set(ScaleSteps.settledRSS, pods: ProcessMemory.residentMiB(of: podsd.processIdentifier), goal: "")

        // MPRIS while a full refresh runs (every ETag changed again), with a track loaded: three
        // refreshes, their samples pooled (one takes about a second, a few dozen PlayPause samples).
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)
        let connection = podsd.connection
        let environment = bus.environment
        var gets: [Double] = [], toggles: [Double] = []
        for round in 2...4 {
            try FeedFiles.touchAll(workload, root: root, round: round)
            let refresh = try await MPRISTiming.during(connection) {
                await Subprocess.run(Fixtures.executable("pods"), ["refresh"], environment: environment, timeout: .seconds(600))
            }
            gets += refresh.getPosition
            toggles += refresh.playPause
        }
        table.set(ScaleSteps.getDuringRefresh, pods: MPRISTiming.percentile(gets.sorted(), 0.99), goal: "< 5")
        table.set(ScaleSteps.toggleDuringRefresh, pods: MPRISTiming.percentile(toggles.sorted(), 0.99), goal: "< 5")
        table.notes.append("during three full refreshes: \(gets.count) Get and \(toggles.count) PlayPause samples")

        // The whole library listed, after a restart (so its peak is the listing's own).
        _ = await podsd.signal(SIGTERM)
        try await Self.listing(bus: bus, directory: directory, into: &table)

        let data = directory.appendingPathComponent("data")
        let size = ["library.sqlite", "library.sqlite-wal"].compactMap {
            try? FileManager.default.attributesOfItem(atPath: data.appendingPathComponent($0).path)[.size] as? Int
        }.reduce(0, +)
        table.set(ScaleSteps.librarySize, pods: Double(size) / 1e6, goal: "≤ the feeds' bytes")

        let (startUp, idle) = try await Self.startUp(bus: bus, directory: directory)
        table.set(ScaleSteps.startUp, pods: startUp, goal: "< 100")
        table.set(ScaleSteps.idleRSS, pods: idle, goal: "< 40")
        if await Subprocess.run("/usr/bin/ldd", [Fixtures.executable("podsd")]).stdout.contains("libswiftCore") {
            table.notes.append("podsd links the Swift runtime dynamically: build with --static-swift-stdlib, "
                               + "as installed, for its start-up and idle figures")
        }
    }

    /// The whole library listed through `pods episodes --json` by a freshly
    /// started podsd, three times, with MPRIS measured meanwhile (the three
    /// listings' samples pooled: one listing takes well under a second, a
    /// few dozen PlayPause samples) and, before, idle for the same number of
    /// seconds: what "answers as it does idle" is measured against.
    static func listing(bus: PrivateBus, directory: URL, into table: inout ResultTable) async throws {
        let podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        let environment = bus.environment
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)
        try await Task.sleep(for: .seconds(1))
        let idle = try await MPRISTiming.during(podsd.connection) { try await Task.sleep(for: .seconds(2)) }
        let peakBefore = ProcessMemory.peakMiB(of: podsd.processIdentifier)
        // Its output goes to a file, as `pods episodes --json > file` would: the bench reads it afterwards.
        let output = directory.appendingPathComponent("episodes.json")
        var seconds: [Double] = [], gets: [Double] = [], toggles: [Double] = []
        for _ in 0..<3 {
            let start = ContinuousClock.now
            let listing = try await MPRISTiming.during(podsd.connection) {
                await Subprocess.run(Fixtures.executable("pods"), ["episodes", "--json"], environment: environment, timeout: .seconds(600),
                                     outputFile: output)
            }
            seconds.append(MPRISTiming.milliseconds(ContinuousClock.now - start) / 1000)
            guard listing.result.status == 0 else { throw TestSupportError("pods episodes failed: \(listing.result.stderr)") }
            gets += listing.getPosition
            toggles += listing.playPause
        }
        let printed = (try? Data(contentsOf: output)) ?? Data()
        try? FileManager.default.removeItem(at: output)
        let count = (try? JSONSerialization.jsonObject(with: printed) as? [Any])?.count ?? -1
        table.set(ScaleSteps.listing, pods: seconds.sorted()[1], goal: "< 1.5")
        table.set(ScaleSteps.listingRSS, pods: ProcessMemory.peakMiB(of: podsd.processIdentifier) - peakBefore, goal: "< 20")
        table.set(ScaleSteps.getIdle, pods: MPRISTiming.percentile(idle.getPosition, 0.99), goal: "")
        table.set(ScaleSteps.toggleIdle, pods: MPRISTiming.percentile(idle.playPause, 0.99), goal: "")
        table.set(ScaleSteps.getDuringListing, pods: MPRISTiming.percentile(gets.sorted(), 0.99), goal: "< 5")
        table.set(ScaleSteps.toggleDuringListing, pods: MPRISTiming.percentile(toggles.sorted(), 0.99), goal: "< 5")
        table.notes.append("pods episodes --json printed \(count) episodes (\(printed.count / 1_000_000) MB) as one valid JSON array; "
                           + "listed three times (median shown), \(gets.count) Get and \(toggles.count) PlayPause samples during them, "
                           + "\(idle.getPosition.count) and \(idle.playPause.count) in the 2 s idle before")
        _ = await podsd.signal(SIGTERM)
    }

    /// Milliseconds from exec to podsd's first answer on the bus, then its
    /// RSS after two idle seconds.
    private static func startUp(bus: PrivateBus, directory: URL) async throws -> (Double, Double) {
        let connection = try await DBusConnection.connect(address: bus.address)
        defer { connection.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.executable("podsd"))
        process.arguments = ["--audio-sink", "fakesink sync=true", "--data-dir", directory.appendingPathComponent("data").path,
                             "--cache-dir", directory.appendingPathComponent("cache").path]
        process.environment = ProcessInfo.processInfo.environment.merging(bus.environment) { $1 }
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        defer { process.terminate() }
        while ContinuousClock.now - start < .seconds(20) {
            if (try? await connection.call(destination: MPRIS.busName, path: MPRIS.objectPath,
                                           interface: "org.freedesktop.DBus.Properties", member: "Get",
                                           arguments: [.string(MPRIS.playerInterface), .string("PlaybackStatus")],
                                           timeout: .seconds(1), autoStart: false)) != nil {
                let answered = MPRISTiming.milliseconds(ContinuousClock.now - start)
                try await Task.sleep(for: .seconds(2))
                return (answered, ProcessMemory.residentMiB(of: process.processIdentifier))
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        throw TestSupportError("podsd did not answer within 20 s")
    }
}
