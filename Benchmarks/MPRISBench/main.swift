// pods-mpris-bench: podsd against mpv + mpv-mpris on one private bus, same file,
// same run. Prints each figure side by side; compare ratios, not absolutes.
import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport

let file = Fixtures.sampleMP3
let calls = Int(ProcessInfo.processInfo.environment["BENCH_CALLS"] ?? "") ?? 2000
let toggles = Int(ProcessInfo.processInfo.environment["BENCH_TOGGLES"] ?? "") ?? 100
let span = Duration.seconds(Int(ProcessInfo.processInfo.environment["BENCH_SECONDS"] ?? "") ?? 10)

/// One player under test: its bus name and process.
struct Player {
    let name: String
    let busName: String
    let pid: Int32
}

// MARK: - Starting the players

func startMPV(bus: PrivateBus) async throws -> (Player, Process)? {
    let mpv = Subprocess.resolve("mpv")
    guard FileManager.default.isExecutableFile(atPath: mpv) else { return nil }
    let plugin = ["/etc/mpv/scripts/mpris.so", "/usr/lib/mpv-mpris/mpris.so"].first { FileManager.default.fileExists(atPath: $0) }
    guard let plugin else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: mpv)
    var arguments = ["--no-video", "--ao=null", "--no-terminal", "--loop-file=inf", "--no-config"]
    arguments += ["--script=\(plugin)", file.path]
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(bus.environment) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let connection = try await DBusConnection.connect(address: bus.address)
    defer { connection.close() }
    for _ in 0..<200 {
        let names = try await connection.call(
            destination: "org.freedesktop.DBus", path: DBusObjectPath(validLiteral: "/org/freedesktop/DBus"),
            interface: "org.freedesktop.DBus", member: "ListNames").first?.stringArrayValue ?? []
        if let name = names.first(where: { $0.hasPrefix("org.mpris.MediaPlayer2.mpv") }) {
            return (Player(name: "mpv-mpris", busName: name, pid: process.processIdentifier), process)
        }
        try await Task.sleep(for: .milliseconds(50))
    }
    process.terminate()
    return nil
}

// MARK: - Measurements

func percentile(_ sorted: [Double], _ p: Double) -> Double { MPRISTiming.percentile(sorted, p) }
func milliseconds(_ duration: Duration) -> Double { MPRISTiming.milliseconds(duration) }

/// Per-thread CPU time (ns, from schedstat) and context switches, and the RSS, of a process.
struct ProcessSample {
    let cpuNanoseconds: [String: Int]
    let contextSwitches: [String: Int]
    let rssKiB: Int

    init(pid: Int32) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        rssKiB = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var cpu: [String: Int] = [:], switches: [String: Int] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            let schedstat = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
            cpu[task] = Int(schedstat.split(separator: " ").first ?? "") ?? 0
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            switches[task] = text.split(separator: "\n").filter { $0.contains("ctxt_switches:") }
                .compactMap { Int($0.split(separator: "\t").last ?? "") }.reduce(0, +)
        }
        cpuNanoseconds = cpu
        contextSwitches = switches
    }

    /// What threads alive at the end did since `earlier` (new threads count whole).
    static func delta(_ later: [String: Int], since earlier: [String: Int]) -> Int {
        later.reduce(0) { sum, entry in sum + entry.value - (earlier[entry.key] ?? 0) }
    }
}

struct Usage {
    var cpuPercent: Double
    var rssMiB: Double
    var wakeupsPerSecond: Double
}

func usage(of players: [Player], over span: Duration) async throws -> [Usage] {
    let before = players.map { ProcessSample(pid: $0.pid) }
    let start = ContinuousClock.now
    try await Task.sleep(for: span)
    let seconds = milliseconds(ContinuousClock.now - start) / 1000
    return zip(before, players).map { first, player in
        let last = ProcessSample(pid: player.pid)
        let cpu = ProcessSample.delta(last.cpuNanoseconds, since: first.cpuNanoseconds)
        let switches = ProcessSample.delta(last.contextSwitches, since: first.contextSwitches)
        return Usage(cpuPercent: Double(cpu) / 1e9 / seconds * 100, rssMiB: Double(last.rssKiB) / 1024,
                     wakeupsPerSecond: Double(switches) / seconds)
    }
}

func setPaused(_ connection: DBusConnection, _ player: Player, _ paused: Bool) async throws {
    _ = try await connection.call(destination: player.busName, path: MPRIS.objectPath,
                                  interface: MPRIS.playerInterface, member: paused ? "Pause" : "Play")
}

// MARK: - Run

let podsd = try await PodsdProcess.start()
try await podsd.client.open(uri: file.absoluteString)
var players = [Player(name: "podsd", busName: MPRIS.busName, pid: podsd.processIdentifier)]
let mpv = try await startMPV(bus: podsd.bus)
if let (player, _) = mpv { players.append(player) } else {
    print("mpv with mpv-mpris is not installed (./scripts/install-deps --bench): podsd figures only.")
}
let connection = try await DBusConnection.connect(address: podsd.bus.address)
try await Task.sleep(for: .seconds(1))

print("Pods MPRIS benchmark: \(file.lastPathComponent), private bus, \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("Get(Position) and Peer.Ping (the bus's floor): \(calls) calls each, interleaved…")
var roundTrips = Array(repeating: [Double](), count: players.count)
var pings = Array(repeating: [Double](), count: players.count)
for _ in 0..<calls {
    for (index, player) in players.enumerated() {
        roundTrips[index].append(milliseconds(try await MPRISTiming.getPosition(connection, busName: player.busName)))
        let start = ContinuousClock.now
        _ = try await connection.call(destination: player.busName, path: MPRIS.objectPath,
                                      interface: "org.freedesktop.DBus.Peer", member: "Ping")
        pings[index].append(milliseconds(ContinuousClock.now - start))
    }
}
roundTrips = roundTrips.map { $0.sorted() }
pings = pings.map { $0.sorted() }

print("PlayPause → PropertiesChanged: \(toggles) toggles each…")
var toggleTimes: [[Double]] = []
for player in players {
    toggleTimes.append(try await MPRISTiming.toggleLatencies(connection, busName: player.busName, count: toggles))
    try await setPaused(connection, player, false)
}

print("CPU and RSS: \(span) playing, then \(span) paused…")
let playing = try await usage(of: players, over: span)
for player in players { try await setPaused(connection, player, true) }
try await Task.sleep(for: .milliseconds(300))
let paused = try await usage(of: players, over: span)

func row(_ label: String, _ values: [Double], format: String = "%.3f") {
    let cells = values.map { String(format: format, $0).padding(toLength: 12, withPad: " ", startingAt: 0) }
    let ratio = values.count > 1 && values[1] != 0 ? String(format: "%.2f", values[0] / values[1]) : "-"
    print(label.padding(toLength: 40, withPad: " ", startingAt: 0) + cells.joined() + ratio)
}
print("")
print("figure".padding(toLength: 40, withPad: " ", startingAt: 0)
      + players.map { $0.name.padding(toLength: 12, withPad: " ", startingAt: 0) }.joined() + "podsd/peer")
row("Get(Position) p50 (ms)", roundTrips.map { percentile($0, 0.5) })
row("Get(Position) p99 (ms)", roundTrips.map { percentile($0, 0.99) })
row("Peer.Ping p50 (ms)", pings.map { percentile($0, 0.5) })
row("Get(Position) p50 ÷ Ping p50", zip(roundTrips, pings).map { percentile($0, 0.5) / percentile($1, 0.5) }, format: "%.2f")
row("PlayPause→PropertiesChanged p50 (ms)", toggleTimes.map { percentile($0, 0.5) })
row("PlayPause→PropertiesChanged p99 (ms)", toggleTimes.map { percentile($0, 0.99) })
row("CPU % playing", playing.map(\.cpuPercent))
row("CPU % paused", paused.map(\.cpuPercent))
row("RSS MiB playing", playing.map(\.rssMiB), format: "%.1f")
row("RSS MiB paused", paused.map(\.rssMiB), format: "%.1f")
row("wakeups/s paused", paused.map(\.wakeupsPerSecond), format: "%.1f")
row("wakeups/s playing", playing.map(\.wakeupsPerSecond), format: "%.1f")
connection.close()
// Top-level code ends with exit(): no deinit or defer runs, so the players
// and the bus go now (SIGKILL: a child may have SIGTERM blocked).
if let (_, process) = mpv { kill(process.processIdentifier, SIGKILL) }
_ = await podsd.signal(SIGKILL)
podsd.bus.stop()
