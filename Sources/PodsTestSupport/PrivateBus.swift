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

    public static func start() throws -> PrivateBus {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Subprocess.resolve("dbus-daemon"))
        process.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        let reader = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !address.isEmpty else {
            process.terminate()
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
