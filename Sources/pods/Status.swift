import ArgumentParser
import Foundation
import PodsClient
import PodsUI

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show what is playing.")

    @OptionGroup var format: OutputFormat

    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in
            var status = try await player.status()
            if let episodeID = status.episodeId, let cache = try? await LibraryClient(player).cacheStatus(),
               cache["episodeId"]?.int64Value == episodeID {
                status.buffering = cache["buffering"]?.boolValue ?? false
                status.cached = cache["cached"]?.doubleValue
            }
            if let extras = try? await PodsPlayerClient(player).extras() { status.add(extras: extras) }
            print(format.json ? Self.json(status) : Self.text(status))
        }
    }

    static func json(_ status: PlayerStatus) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(status) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    static func text(_ status: PlayerStatus) -> String {
        let failed = (status.lastError.map { "\n  stopped by an error: \($0)" } ?? "")
            + (status.pausedBecause.map { "\n  paused: \($0)" } ?? "")
        guard let title = status.title else { return "\(status.state.rawValue): nothing loaded\(failed)" }
        let length = status.duration.map { " / " + clock($0) } ?? ""
        let speed = status.rate == 1 ? "" : String(format: "  ×%.2g", status.rate)
        let levelled = status.loudnessGain.map { String(format: "  levelled %+.1f dB", $0) } ?? ""
        let cached = status.cached.map { String(format: "  %d%% cached", Int(($0 * 100).rounded(.down))) } ?? ""
        let state = status.buffering && status.state == .playing ? "Playing (buffering…)" : status.state.rawValue
        let chapter = status.chapter.map { "\n  chapter \($0.index): \($0.title) (from \(clock($0.start)))" } ?? ""
        let sleep = status.sleep.map { timer in
            "\n  sleep: " + (timer.remaining.map { "pauses in \(clock($0))" } ?? "pauses at the end of the \(timer.mode)")
        } ?? ""
        return """
            \(state): \(title)
              \(clock(status.position))\(length)\(speed)  volume \(Int((status.volume * 100).rounded()))%\(levelled)\(cached)\(chapter)\(sleep)\(failed)
              \(status.url ?? "")
            """
    }

    static func clock(_ seconds: Double) -> String { Clock.text(seconds) }
}
