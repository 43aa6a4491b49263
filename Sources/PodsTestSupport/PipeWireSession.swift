import Foundation

/// A real PipeWire sound server of a test's own: `pipewire`, `wireplumber`
/// (which moves a stream when its device goes away, as on a desktop) and
/// `pipewire-pulse` (the PulseAudio server `pulsesink` talks to), in a
/// runtime folder of their own, with null sinks standing in for the
/// laptop's speakers and the listener's headphones.
public final class PipeWireSession: Sendable {
    public static let programs = ["/usr/bin/pipewire", "/usr/bin/wireplumber", "/usr/bin/pipewire-pulse", "/usr/bin/pw-cli", "/usr/bin/pactl"]
    public let runtime: URL
    private let processes: [Process]
    private let bus: PrivateBus

    /// Whether PipeWire and its tools are installed here.
    public static var isInstalled: Bool { programs.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) } }

    private init(runtime: URL, processes: [Process], bus: PrivateBus) {
        self.runtime = runtime
        self.processes = processes
        self.bus = bus
    }

    /// What a client needs to reach this server (`pulsesink`, `pactl`).
    public var environment: [String: String] {
        ["XDG_RUNTIME_DIR": runtime.path, "PULSE_SERVER": "unix:\(runtime.path)/pulse/native"]
    }

    /// Starts the server with a null sink for each of `sinks`, the last the default.
    public static func start(sinks: [String]) async throws -> PipeWireSession {
        let runtime = try Fixtures.temporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path)
        let bus = try await PrivateBus.start()  // WirePlumber wants a session bus; a hermetic one
        var environment = ProcessInfo.processInfo.environment.merging(bus.environment) { $1 }
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["XDG_CONFIG_HOME"] = runtime.appendingPathComponent("config").path
        environment["XDG_STATE_HOME"] = runtime.appendingPathComponent("state").path
        environment["HOME"] = runtime.path
        var processes: [Process] = []
        for program in ["pipewire", "wireplumber", "pipewire-pulse"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/\(program)")
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            processes.append(process)
            if program == "pipewire" {
                try await waitFor(timeout: .seconds(10)) { FileManager.default.fileExists(atPath: runtime.appendingPathComponent("pipewire-0").path) }
            }
        }
        let session = PipeWireSession(runtime: runtime, processes: processes, bus: bus)
        try await waitFor(timeout: .seconds(10)) { await session.pactl(["info"]).status == 0 }
        for sink in sinks {
            let made = await session.tool("pw-cli", ["create-node", "adapter",
                "{ factory.name=support.null-audio-sink node.name=\(sink) media.class=Audio/Sink object.linger=1 audio.position=[FL FR] }"])
            guard made.status == 0 else { throw TestSupportError("pw-cli could not make the sink \(sink): \(made.stderr)") }
        }
        try await waitFor(timeout: .seconds(10)) {
            let listed = await session.pactl(["list", "short", "sinks"]).stdout
            return sinks.allSatisfy { listed.contains($0) }
        }
        if let last = sinks.last { _ = await session.pactl(["set-default-sink", last]) }
        return session
    }

    /// Takes the sink away, as unplugging its device does.
    public func remove(_ sink: String) async throws {
        let nodes = await tool("pw-cli", ["ls", "Node"]).stdout
        // Each object's block starts "\tid N, type PipeWire:Interface:Node…" and lists its node.name.
        var current: String?
        for line in nodes.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("id ") { current = text.dropFirst(3).split(separator: ",").first.map(String.init) }
            if text == "node.name = \"\(sink)\"", let id = current {
                _ = await tool("pw-cli", ["destroy", id])
                return
            }
        }
        throw TestSupportError("no PipeWire node named \(sink)")
    }

    /// Moves every stream to `sink`, by hand (as the sound settings do).
    public func moveStreams(to sink: String) async {
        let inputs = await pactl(["list", "short", "sink-inputs"]).stdout
        for line in inputs.split(separator: "\n") {
            if let index = line.split(separator: "\t").first { _ = await pactl(["move-sink-input", String(index), sink]) }
        }
    }

    /// The sink each playing stream is on.
    public func streamSinks() async -> [String] {
        let sinks = await pactl(["list", "short", "sinks"]).stdout.split(separator: "\n").reduce(into: [String: String]()) { names, line in
            let fields = line.split(separator: "\t")
            if fields.count > 1 { names[String(fields[0])] = String(fields[1]) }
        }
        return await pactl(["list", "short", "sink-inputs"]).stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t")
            return fields.count > 1 ? sinks[String(fields[1])] : nil
        }
    }

    public func pactl(_ arguments: [String]) async -> CommandResult { await tool("pactl", arguments) }

    private func tool(_ name: String, _ arguments: [String]) async -> CommandResult {
        await Subprocess.run(name, arguments, environment: environment.merging(bus.environment) { $1 }, timeout: .seconds(10))
    }

    deinit {
        for process in processes.reversed() where process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: runtime)
    }
}
