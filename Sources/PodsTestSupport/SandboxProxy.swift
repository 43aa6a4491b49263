import Foundation

/// Flatpak's bus proxy (`xdg-dbus-proxy --filter`) in front of a private
/// bus: what a sandboxed app sees of the session bus when it may talk to
/// the names in `talk` and nothing else.
public final class SandboxProxy: Sendable {
    /// The address a sandboxed client connects to.
    public let address: String
    private let process: Process
    private let directory: URL

    private init(address: String, process: Process, directory: URL) {
        self.address = address
        self.process = process
        self.directory = directory
    }

    /// Starts a proxy for `bus` and returns once its socket listens.
    /// `own`: names the sandboxed app may own (its application id).
    public static func start(bus: PrivateBus, talk: [String], own: [String] = []) async throws -> SandboxProxy {
        let directory = try Fixtures.temporaryDirectory()
        let socket = directory.appendingPathComponent("bus")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Subprocess.resolve("xdg-dbus-proxy"))
        process.arguments = [bus.address, socket.path, "--filter"] + talk.map { "--talk=\($0)" } + own.map { "--own=\($0)" }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let proxy = SandboxProxy(address: "unix:path=\(socket.path)", process: process, directory: directory)
        let deadline = ContinuousClock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: socket.path) {
            guard process.isRunning, ContinuousClock.now < deadline else { throw TestSupportError("xdg-dbus-proxy did not start") }
            try await Task.sleep(for: .milliseconds(20))
        }
        return proxy
    }

    /// Environment that puts a client (playerctl, gdbus, pods) behind the proxy.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    deinit {
        // SIGKILL, as for `PrivateBus`: the test thread's signal mask blocks SIGTERM in children.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }
}
