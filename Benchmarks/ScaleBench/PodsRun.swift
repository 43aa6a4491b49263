import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport

/// The workload's steps through a real podsd (release build, private bus)
/// driven by the real `pods`.
struct PodsRun {
    let root: URL
    let opml: URL
    let work: URL
    /// The feeds' addresses (for curl's load beside the refreshes).
    let urls: [String]
    /// Full refreshes that MPRIS is measured during (`--rounds`).
    let rounds: Int

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

        try await Self.mprisUnderLoad(podsd, bus: bus, workload: workload, root: root, urls: urls, rounds: rounds, into: &table)

        // The whole library listed, after a restart (so its peak is the listing's own).
        _ = await podsd.signal(SIGTERM)
        try await Self.listing(bus: bus, directory: directory, rounds: rounds, into: &table)

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

    /// MPRIS with a track loaded, in three phases of equal length: during
    /// `rounds` full refreshes (every ETag changed again: twenty give some
    /// 300 PlayPause samples and 2,500 Get, so the p99 is not the largest of
    /// a few dozen); idle; and while curl fetches the same 200 feeds from
    /// the same server once per refresh's time, the same bytes through the
    /// same loopback at the same pace with no podsd work at all: the share
    /// of the network itself.
    static func mprisUnderLoad(_ podsd: PodsdProcess, bus: PrivateBus, workload: ScaleWorkload, root: URL, urls: [String], rounds: Int,
                               into table: inout ResultTable) async throws {
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)
        let connection = podsd.connection
        let environment = bus.environment
        sync()  // the import's and the refreshes' writes on disk first: the kernel's writeback is not what is measured
        var refresh = (gets: [Double](), toggles: [Double]())
        var seconds = 0.0
        for round in 0..<rounds {
            try FeedFiles.touchAll(workload, root: root, round: round + 2)
            let start = ContinuousClock.now
            let measured = try await MPRISTiming.during(connection) {
                await Subprocess.run(Fixtures.executable("pods"), ["refresh"], environment: environment, timeout: .seconds(600))
            }
            seconds += MPRISTiming.milliseconds(ContinuousClock.now - start) / 1000
            refresh.gets += measured.getPosition
            refresh.toggles += measured.playPause
        }
        let span = Duration.milliseconds(Int(seconds * 1000))
        let idle = try await MPRISTiming.during(connection) { try await Task.sleep(for: span) }
        // The same bytes at the refreshes' pace: one fetch of every feed per refresh's time.
        let pace = span / rounds
        let network = try await MPRISTiming.during(connection) {
            for _ in 0..<rounds {
                let start = ContinuousClock.now
                _ = try await Peers.curl(urls)
                try await Task.sleep(until: start + pace)
            }
        }
        table.set(ScaleSteps.getRefreshIdle, pods: p99(idle.getPosition), goal: "")
        table.set(ScaleSteps.toggleRefreshIdle, pods: p99(idle.playPause), goal: "")
        table.set(ScaleSteps.getDuringRefresh, pods: p99(refresh.gets), goal: "< 5")
        table.set(ScaleSteps.toggleDuringRefresh, pods: p99(refresh.toggles), goal: "< 5")
        table.set(ScaleSteps.getDuringCurl, pods: p99(network.getPosition), goal: "")
        table.set(ScaleSteps.toggleDuringCurl, pods: p99(network.playPause), goal: "")
        func spread(_ values: [Double]) -> String {
            let sorted = values.sorted()
            return String(format: "%d samples, p50 %.2f, p90 %.2f, p99 %.2f, max %.2f ms", sorted.count,
                          MPRISTiming.percentile(sorted, 0.5), MPRISTiming.percentile(sorted, 0.9),
                          MPRISTiming.percentile(sorted, 0.99), sorted.last ?? .nan)
        }
        table.notes.append(String(format: "PlayPause over %.1f s each: idle ", seconds) + spread(idle.playPause)
                           + "; during \(rounds) full refreshes " + spread(refresh.toggles)
                           + "; while curl fetched the same feeds at that pace " + spread(network.playPause))
    }

    /// The whole library listed through `pods episodes --json` by a freshly
    /// started podsd, `rounds` times, with MPRIS measured meanwhile (the
    /// listings' samples pooled: one takes about a third of a second, a
    /// dozen PlayPause samples) and then idle for as long: what "answers as
    /// it does idle" is measured against.
    static func listing(bus: PrivateBus, directory: URL, rounds: Int, into table: inout ResultTable) async throws {
        // What the steps before wrote (the library, the spilled bodies) goes to
        // disk first: the kernel's writeback is not the listing's.
        sync()
        let podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        let environment = bus.environment
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)
        try await Task.sleep(for: .seconds(1))
        let peakBefore = ProcessMemory.peakMiB(of: podsd.processIdentifier)
        // Its output goes to a file, as `pods episodes --json > file` would: the bench reads it afterwards.
        let output = directory.appendingPathComponent("episodes.json")
        var seconds: [Double] = [], gets: [Double] = [], toggles: [Double] = []
        for _ in 0..<rounds {
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
        let peakGrowth = ProcessMemory.peakMiB(of: podsd.processIdentifier) - peakBefore
        let span = Duration.milliseconds(Int(seconds.reduce(0, +) * 1000))
        let idle = try await MPRISTiming.during(podsd.connection) { try await Task.sleep(for: span) }
        let printed = (try? Data(contentsOf: output)) ?? Data()
        try? FileManager.default.removeItem(at: output)
        let count = (try? JSONSerialization.jsonObject(with: printed) as? [Any])?.count ?? -1
        table.set(ScaleSteps.listing, pods: seconds.sorted()[seconds.count / 2], goal: "< 1.5")
        table.set(ScaleSteps.listingRSS, pods: peakGrowth, goal: "< 20")
        table.set(ScaleSteps.getIdle, pods: p99(idle.getPosition), goal: "")
        table.set(ScaleSteps.toggleIdle, pods: p99(idle.playPause), goal: "")
        table.set(ScaleSteps.getDuringListing, pods: p99(gets), goal: "< 5")
        table.set(ScaleSteps.toggleDuringListing, pods: p99(toggles), goal: "< 5")
        table.notes.append("pods episodes --json printed \(count) episodes (\(printed.count / 1_000_000) MB) as one valid JSON array; "
                           + "listed \(rounds) times (median shown), \(gets.count) Get and \(toggles.count) PlayPause samples during them, "
                           + "\(idle.getPosition.count) and \(idle.playPause.count) idle after, for as long")
        _ = await podsd.signal(SIGTERM)
    }

    /// The p99 of samples in any order.
    private static func p99(_ values: [Double]) -> Double { MPRISTiming.percentile(values.sorted(), 0.99) }

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
