import Foundation
import PodsClient
import PodsTestSupport

/// The range cache against plain `playbin` streaming, in the same run, on
/// the same loopback server (which counts the bytes it really sends).
///
/// Per format (three-minute MP3, Ogg Vorbis, and M4A with `moov` at the
/// end), each player runs the issue's scenario through a real podsd:
/// session one plays 30 s, pauses, seeks to 2:00, plays 10 s, seeks back to
/// 0:10 and stops; podsd restarts and session two plays to the end. The
/// plain player is `podsd --no-cache` (playbin with souphttpsrc).
///
/// Figures: bytes on the wire ÷ file size over both sessions; start-up
/// (from `PlayEpisode` to the position running, median of `--trials` cold
/// starts); and the seek back to 0:10.
///
///     swift run -c release pods-cache-bench [--rate 3] [--trials 5]
@main
struct CacheBench {
    static func main() async throws {
        let arguments = CommandLine.arguments
        func option(_ name: String, _ fallback: Double) -> Double {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Double(arguments[$0 + 1]) : nil } ?? fallback
        }
        let rate = option("--rate", 3)
        let trials = Int(option("--trials", 5))
        let episodes = try await EpisodeServer()
        defer { episodes.server.stop() }
        print("scenario at rate \(rate): play 30 s, pause, seek 2:00, play 10 s, seek 0:10, stop; restart; play to the end")
        print("\(pad("format", 8))\(pad("size", 11))\(pad("pods ×", 9))\(pad("plain ×", 9))"
              + "\(pad("pods start ms", 15))\(pad("plain start ms", 16))\(pad("Δ ms", 8))"
              + "\(pad("pods seek ms", 14))plain seek ms")
        for format in AudioFixtures.Format.allCases {
            var ratio: [Bool: Double] = [:], startUp: [Bool: Double] = [:], seek: [Bool: Double] = [:]
            for cached in [true, false] {
                FileHandle.standardError.write(Data("\(format.rawValue), \(cached ? "pods" : "plain playbin")…\n".utf8))
                let before = episodes.server.bytesSent(for: EpisodeServer.path(format))
                let timings: ListeningScenario.Timings
                do {
                    timings = try await scenario(episodes, format: format, cached: cached, rate: rate)
                } catch {
                    FileHandle.standardError.write(Data("  the scenario failed: \(error)\n".utf8))
                    ratio[cached] = .nan
                    continue
                }
                let sent = episodes.server.bytesSent(for: EpisodeServer.path(format)) - before
                ratio[cached] = Double(sent) / Double(episodes.files[format]?.count ?? 1)
                seek[cached] = milliseconds(timings.cachedSeek)
                var starts: [Double] = []
                for _ in 0..<trials { starts.append(try await coldStart(episodes, format: format, cached: cached)) }
                startUp[cached] = starts.sorted()[starts.count / 2]
            }
            print("\(pad(format.rawValue, 8))\(pad(String(format: "%.2f MB", Double(episodes.files[format]?.count ?? 0) / 1e6), 11))"
                  + "\(pad(String(format: "%.3f", ratio[true] ?? 0), 9))\(pad(String(format: "%.2f", ratio[false] ?? 0), 9))"
                  + "\(pad(String(format: "%.0f", startUp[true] ?? 0), 15))\(pad(String(format: "%.0f", startUp[false] ?? 0), 16))"
                  + "\(pad(String(format: "%+.0f", (startUp[true] ?? 0) - (startUp[false] ?? 0)), 8))"
                  + "\(pad(String(format: "%.1f", seek[true] ?? 0), 14))\(String(format: "%.1f", seek[false] ?? 0))")
        }
    }

    /// Both sessions of the scenario, in a fresh library.
    static func scenario(_ episodes: EpisodeServer, format: AudioFixtures.Format, cached: Bool,
                         rate: Double) async throws -> ListeningScenario.Timings {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let extra = cached ? [] : ["--no-cache"]
        let episode: Int64
        let timings: ListeningScenario.Timings
        do {
            let podsd = try await PodsdProcess.start(extraArguments: extra, directory: directory)
            guard let id = try await episodes.subscribe(podsd)[format] else { throw TestSupportError("no \(format) episode") }
            episode = id
            timings = try await ListeningScenario.sessionOne(podsd, episode: episode, rate: rate)
            _ = await podsd.signal(SIGTERM)
        }
        let podsd = try await PodsdProcess.start(extraArguments: extra, directory: directory)
        try await ListeningScenario.playToTheEnd(podsd, episode: episode, rate: rate)
        _ = await podsd.signal(SIGTERM)
        return timings
    }

    /// Milliseconds from `PlayEpisode` to the position running, with nothing cached.
    static func coldStart(_ episodes: EpisodeServer, format: AudioFixtures.Format, cached: Bool) async throws -> Double {
        let podsd = try await PodsdProcess.start(extraArguments: cached ? [] : ["--no-cache"])
        defer { _ = kill(podsd.processIdentifier, SIGKILL) }
        guard let episode = try await episodes.subscribe(podsd)[format] else { throw TestSupportError("no \(format) episode") }
        let start = ContinuousClock.now
        try await LibraryClient(podsd.client).play(episode: episode)
        try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(20), every: .milliseconds(2)) { $0 > 0 }
        return milliseconds(ContinuousClock.now - start)
    }

    static func milliseconds(_ duration: Duration) -> Double { duration / .milliseconds(1) }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
