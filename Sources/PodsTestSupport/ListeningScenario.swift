import Foundation
import PodsClient

/// The range cache's listening scenario, driven through podsd's D-Bus
/// interfaces like any client: play 30 s, pause, seek to 2:00, play 10 s,
/// seek back to 0:10, stop. The tests and `pods-cache-bench` share it.
public enum ListeningScenario {
    /// What the first session measured.
    public struct Timings: Sendable {
        /// From `PlayEpisode` to the position running.
        public var startUp: Duration
        /// From the seek back to 0:10 (played before, so cached) to the
        /// pipeline reporting a position from there.
        public var cachedSeek: Duration
    }

    /// Runs session one on `episode` at `rate` (3 plays the 40 s in about 14 s).
    public static func sessionOne(_ podsd: PodsdProcess, episode: Int64, rate: Double = 1) async throws -> Timings {
        let player = podsd.client
        try await player.setRate(rate)
        let library = LibraryClient(player)
        let start = ContinuousClock.now
        try await library.play(episode: episode)
        try await waitForPosition(player, timeout: .seconds(20)) { $0 > 0 }
        let startUp = ContinuousClock.now - start
        try await waitForPosition(player, timeout: .seconds(60)) { $0 >= 30 }
        try await player.pause()
        try await player.setPosition(.seconds(120))
        try await player.play()
        try await waitForPosition(player, timeout: .seconds(30)) { $0 >= 130 }
        let seekStart = ContinuousClock.now
        try await player.setPosition(.seconds(10))
        // The engine reports the target itself until the seek completes;
        // after that the pipeline's own position, which has moved on (at 3×
        // on loaded cores, past 12 by the first answer: below 16 is this
        // seek's, the position was past 130).
        try await waitForPosition(player, timeout: .seconds(10), every: .milliseconds(2)) { $0 > 10 && $0 < 16 }
        let cachedSeek = ContinuousClock.now - seekStart
        try await player.stop()
        return Timings(startUp: startUp, cachedSeek: cachedSeek)
    }

    /// Plays `episode` from where it was left to its end (session two).
    public static func playToTheEnd(_ podsd: PodsdProcess, episode: Int64, rate: Double = 1,
                                    timeout: Duration = .seconds(300)) async throws {
        let player = podsd.client
        try await player.setRate(rate)
        try await LibraryClient(player).play(episode: episode)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            let episodes = try await LibraryClient(player).episodesJSON()
            if episodes.contains(where: { $0["id"] as? Int == Int(episode) && $0["completed"] as? Bool == true }) { return }
        }
        throw TestSupportError("episode \(episode) did not play to its end within \(timeout)")
    }

    /// Polls `Position` (seconds) until `condition` holds.
    public static func waitForPosition(_ player: PlayerClient, timeout: Duration, every interval: Duration = .milliseconds(5),
                                       _ condition: (Double) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        var last = -1.0
        while ContinuousClock.now < deadline {
            last = Double(try await player.property("Position").int64Value ?? 0) / 1_000_000
            if condition(last) { return }
            try await Task.sleep(for: interval)
        }
        throw TestSupportError("the position did not get there within \(timeout) (last \(last) s)")
    }
}
