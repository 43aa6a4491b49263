import Foundation
import PodsClient
import PodsDBus
import PodsProtocol

/// A real `podsd` on a private bus, playing to `fakesink sync=true`.
public final class PodsdProcess: Sendable {
    public let bus: PrivateBus
    /// A connection of the test's own to the same bus.
    public let connection: DBusConnection
    public let client: PlayerClient
    /// Holds `data` and `cache`; removed at the end unless the test passed it in.
    public let directory: URL
    private let ownsDirectory: Bool
    private let process: Process
    private let stderrPipe: Pipe

    private init(bus: PrivateBus, connection: DBusConnection, process: Process, stderrPipe: Pipe,
                 directory: URL, ownsDirectory: Bool) {
        self.bus = bus
        self.connection = connection
        self.client = PlayerClient(connection: connection)
        self.process = process
        self.stderrPipe = stderrPipe
        self.directory = directory
        self.ownsDirectory = ownsDirectory
    }

    /// Starts a private bus (or uses `bus`) and podsd on it, keeping its
    /// data under `directory` (a new temporary one by default); returns once
    /// podsd owns its name.
    /// `audioSink` nil starts podsd without `--audio-sink` (the config file's, else the default).
    public static func start(extraArguments: [String] = [], bus existing: PrivateBus? = nil,
                             directory given: URL? = nil, audioSink: String? = "fakesink sync=true",
                             environment: [String: String] = [:], refreshAsConfigured: Bool = false) async throws -> PodsdProcess {
        let bus: PrivateBus
        if let existing { bus = existing } else { bus = try await PrivateBus.start() }
        let directory = try given ?? Fixtures.temporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.executable("podsd"))
        process.arguments = (audioSink.map { ["--audio-sink", $0] } ?? []) + [
                             "--data-dir", directory.appendingPathComponent("data").path,
                             "--cache-dir", directory.appendingPathComponent("cache").path,
                             "--config", directory.appendingPathComponent("config.toml").path]
            // No background refresh unless a test asks for one (its feeds are the tests' own).
            // (`refreshAsConfigured`: config.toml's refresh-interval, which a flag would override).
            + (extraArguments.contains("--refresh-interval") || refreshAsConfigured ? [] : ["--refresh-interval", "0"]) + extraArguments
        // The machine's system bus is never the test's (logind's sleep lock): a test that wants one passes its own.
        let noSystemBus = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(directory.path)/no-system-bus"]
        process.environment = ProcessInfo.processInfo.environment.merging(bus.environment) { $1 }.merging(noSystemBus) { $1 }
            .merging(Fixtures.backtraceEnvironment) { $1 }.merging(environment) { $1 }
        let stderrPipe = Pipe()
        process.standardError = stderrPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let connection = try await DBusConnection.connect(address: bus.address)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            // The name may change hands between the two calls (`--replace`: the old owner lets go).
            if try await connection.nameHasOwner(MPRIS.busName),
               (try? await connection.processID(of: MPRIS.busName)) == process.processIdentifier {
                return PodsdProcess(bus: bus, connection: connection, process: process, stderrPipe: stderrPipe,
                                    directory: directory, ownsDirectory: given == nil)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        // What it said so far, read without waiting: a podsd still starting writes nothing more and never
        // closes the pipe, and a blocking read here held one of the two threads every test shares.
        kill(process.processIdentifier, SIGKILL)
        let descriptor = stderrPipe.fileHandleForReading.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var said: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 65_536)
        while said.count < 1 << 20 {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            said += buffer[..<count]
        }
        throw TestSupportError("podsd did not take \(MPRIS.busName) within 20 s: \(String(decoding: said.suffix(4_000), as: UTF8.self))")
    }

    public var processIdentifier: Int32 { process.processIdentifier }

    /// What podsd wrote to stderr, once it has exited.
    public func errorOutput() -> String {
        guard !process.isRunning else { return "" }
        return String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
    public var isRunning: Bool { process.isRunning }

    /// The signal that ended podsd, once it has exited; nil while it runs or
    /// when it exited by itself (whatever its status).
    public var fatalSignal: Int32? {
        guard !process.isRunning, process.terminationReason == .uncaughtSignal else { return nil }
        return process.terminationStatus
    }

    /// Runs a command-line tool against this bus (`playerctl`, `gdbus`, `pods`).
    public func run(_ tool: String, _ arguments: [String], timeout: Duration = .seconds(30), input: String? = nil) async -> CommandResult {
        await Subprocess.run(tool, arguments, environment: bus.environment, timeout: timeout, input: input)
    }

    /// `playerctl -p pods ARGS`.
    public func playerctl(_ arguments: String...) async -> CommandResult {
        await playerctl(arguments)
    }

    public func playerctl(_ arguments: [String]) async -> CommandResult {
        await run("playerctl", ["-p", "pods"] + arguments)
    }

    /// The built `pods` CLI.
    public func pods(_ arguments: String...) async -> CommandResult {
        await run(Fixtures.executable("pods"), arguments)
    }

    /// Sends `signal` and waits up to `timeout` for the exit; nil if it did not
    /// exit (then where its threads wait is printed). A stop takes 10–100 ms
    /// alone and up to a second or more while the parallel suites load both
    /// cores, so the default bound is for a podsd that hangs, not a slow one.
    public func signal(_ signal: Int32, timeout: Duration = .seconds(20)) async -> (status: Int32, after: Duration)? {
        let start = ContinuousClock.now
        kill(process.processIdentifier, signal)
        guard let status = await waitForExit(timeout: timeout) else {
            await printThreads()
            return nil
        }
        return (status, ContinuousClock.now - start)
    }

    /// Where each of podsd's threads is, on stdout, when gdb is at hand: what a
    /// podsd that does not stop is waiting for.
    /// Its state in /proc comes first: a zombie ("Z") has exited and only
    /// Foundation's notice of it is late (seen once in the parallel suites,
    /// where gdb then had nothing to attach to).
    private func printThreads() async {
        let pid = process.processIdentifier
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "gone"
        let state = stat.split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? stat
        print("podsd \(pid) did not stop; its state: \(state)")
        let gdb = "/usr/bin/gdb"
        guard FileManager.default.isExecutableFile(atPath: gdb) else { return }
        let threads = await Subprocess.run(gdb, ["-p", String(pid), "-batch", "-ex", "thread apply all bt 30"],
                                           environment: [:], timeout: .seconds(60))
        print("its threads:\n\(threads.stdout.suffix(60_000))\(threads.stderr.suffix(2_000))")
    }

    /// Waits for podsd to exit by itself; its exit status, or nil after `timeout`.
    public func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationStatus
    }

    deinit {
        connection.close()
        // No waitUntilExit here: deinit may run on a cooperative thread, and
        // Foundation learns of the exit through libdispatch threads that the
        // pool shares, so blocking could starve it. Foundation reaps the child.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }
}
