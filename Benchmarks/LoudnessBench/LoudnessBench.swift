import Foundation
import Glibc
import PodsClient
import PodsTestSupport

/// What loudness levelling costs: podsd's CPU time to play the same file
/// with `loudness` off and on, runs alternating. By default as fast as the
/// pipeline goes (`fakesink sync=false`: the work alone, without the idle
/// time of real playback around it); `--realtime` plays in real time
/// (`sync=true`), as a listener's podsd does. Printed per hour of audio,
/// and the ratio.
///
///     swift run -c release pods-loudness-bench [--minutes 20] [--runs 3] [--realtime]
@main
struct LoudnessBench {
    static func main() async throws {
        let arguments = CommandLine.arguments
        func option(_ name: String, _ fallback: Int) -> Int {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? fallback
        }
        let minutes = option("--minutes", 20), runs = option("--runs", 3), realtime = arguments.contains("--realtime")
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Speech-like pink noise at about −30 LUFS, stereo 44.1 kHz MP3 (decoded to 16-bit, as most podcasts are).
        let file = directory.appendingPathComponent("show.mp3")
        let made = await Subprocess.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i",
            "anoisesrc=color=pink:seed=3:d=\(minutes * 60):a=0.05,tremolo=f=1.5:d=0.6", "-ac", "2", "-ar", "44100",
            "-c:a", "libmp3lame", "-b:a", "128k", "-y", file.path,
        ], timeout: .seconds(600))
        guard made.status == 0 else { throw TestSupportError("ffmpeg: \(made.stderr)") }

        var seconds: [String: [Double]] = ["off": [], "on": []]
        for run in 0..<(2 * runs) {
            let mode = run % 2 == 0 ? "off" : "on"
            seconds[mode, default: []].append(try await cpuSeconds(playing: file, loudness: mode, realtime: realtime, in: directory))
            FileHandle.standardError.write(Data("  run \(run + 1): loudness \(mode), \(String(format: "%.3f", seconds[mode]!.last!)) s of CPU\n".utf8))
        }
        let hours = Double(minutes) / 60
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let off = median(seconds["off"]!), on = median(seconds["on"]!)
        print(String(format: "podsd CPU per hour of audio (%@, median of %d): levelling off %.2f s, on %.2f s: %.3f×",
                     realtime ? "in real time" : "as fast as it decodes", runs,
                     off / hours, on / hours, on / off))
    }

    /// podsd's user and system CPU seconds from the play to the end of `file`.
    static func cpuSeconds(playing file: URL, loudness: String, realtime: Bool, in directory: URL) async throws -> Double {
        let run = directory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        try Data("loudness = \"\(loudness)\"\n".utf8).write(to: run.appendingPathComponent("config.toml"))
        let podsd = try await PodsdProcess.start(extraArguments: ["--no-auto-next"], directory: run, audioSink: "fakesink sync=\(realtime)")
        let before = cpu(podsd.processIdentifier)
        try await podsd.client.open(uri: file.absoluteString)
        try await waitFor(timeout: .seconds(7200)) { (try? await podsd.client.status().state) == .stopped }
        let after = cpu(podsd.processIdentifier)
        _ = await podsd.signal(SIGTERM)
        return after - before
    }

    /// utime + stime from /proc/PID/stat, seconds.
    static func cpu(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
