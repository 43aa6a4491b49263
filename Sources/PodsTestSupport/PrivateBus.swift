import Foundation

/// A private session bus (`dbus-daemon --session`) of a test's own, so tests
/// run side by side without seeing each other.
public final class PrivateBus: Sendable {
    /// The address clients connect to.
    public let address: String
    private let process: Process

    private init(address: String, process: Process) {
        self.address = address
        self.process = process
    }

    /// Starts a daemon and returns once it printed its address. The wait
    /// is on a thread of its own: a test suite starts dozens of buses at
    /// once, and each start blocking one of the cooperative pool's two
    /// threads stalled every other test's D-Bus calls past their timeouts.
    /// `environment` is the daemon's (`XDG_DATA_DIRS` says where it finds
    /// the activation files of services it starts on demand).
    ///
    /// The bus is hermetic: it starts on demand only services whose
    /// activation files are under the folders `environment`'s `XDG_DATA_DIRS`
    /// names (`dbus-1/services` in each), never what the machine has
    /// installed (`Tests/session-bus.conf`).
    public static func start(environment: [String: String] = [:]) async throws -> PrivateBus {
        let configuration = try configurationFile(serviceFolders: (environment["XDG_DATA_DIRS"] ?? "")
            .split(separator: ":").map { "\($0)/dbus-1/services" })
        defer { try? FileManager.default.removeItem(at: configuration) }  // read by the daemon before it prints its address
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Subprocess.resolve("dbus-daemon"))
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.arguments = ["--config-file=\(configuration.path)", "--nofork", "--nopidfile", "--print-address=1"]
        let address = try await Subprocess.firstLine(startingThe: process, threadName: "pods.test.bus")
        guard !address.isEmpty else {
            kill(process.processIdentifier, SIGKILL)
            throw TestSupportError("dbus-daemon printed no address")
        }
        return PrivateBus(address: address, process: process)
    }

    /// The suite's bus configuration with `serviceFolders` as its only
    /// service folders, in a file of its own.
    static func configurationFile(serviceFolders: [String]) throws -> URL {
        let template = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Tests/session-bus.conf"), encoding: .utf8)
        let folders = serviceFolders.map { "<servicedir>\($0.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;"))</servicedir>" }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pods-bus-\(UUID().uuidString).conf")
        try template.replacingOccurrences(of: "<!-- servicedirs -->", with: folders.joined(separator: "\n  "))
            .write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Environment that points clients (playerctl, gdbus, pods) at this bus.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    deinit { stop() }

    /// Ends the daemon (also done when the bus is released; a program that
    /// ends with `exit()`, as top-level code does, must call it).
    public func stop() {
        // SIGKILL, not terminate(): the daemon inherits the test thread's
        // signal mask, in which Swift's runtime blocks SIGTERM, so SIGTERM
        // never reached it and every test left a bus running.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// A failure in test set-up.
public struct TestSupportError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension PrivateBus {
    /// playerctld on this bus (it follows every MPRIS player and caches its
    /// properties); the caller kills it.
    public func startPlayerctld() throws -> Process {
        let playerctld = Process()
        playerctld.executableURL = URL(fileURLWithPath: "/usr/bin/playerctld")
        playerctld.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        playerctld.standardOutput = FileHandle.nullDevice
        playerctld.standardError = FileHandle.nullDevice
        try playerctld.run()
        return playerctld
    }
}
