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
    public static func start(environment: [String: String] = [:]) async throws -> PrivateBus {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Subprocess.resolve("dbus-daemon"))
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1"]
        let address = try await Subprocess.firstLine(startingThe: process, threadName: "pods.test.bus")
        guard !address.isEmpty else {
            kill(process.processIdentifier, SIGKILL)
            throw TestSupportError("dbus-daemon printed no address")
        }
        return PrivateBus(address: address, process: process)
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
