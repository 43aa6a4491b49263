import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// Switching between episodes of different formats at every speed: podsd
/// died with SIGSEGV in about half such switches at any rate but 1× (the
/// time-stretch element kept a queue from the previous stream, see
/// `PlaybackEngine.renewTimeStretch`).
///
/// Every ordered pair of the five formats (`FormatShow`), at each of five
/// rates, with trim-silence off and on, switched three ways (PlayEpisode,
/// Next through the queue, auto-next at the end of an episode): 600
/// switches. Each changes the rate in the middle of the episode playing,
/// switches, seeks at once, and checks that podsd is alive, the episode
/// asked for is the one playing, at the rate asked, and the position moves
/// at that rate. The three ways run side by side, each on a podsd of its own.
@Suite(.timeLimit(.minutes(10))) struct FormatSwitchTests {
    static let rates = [0.5, 0.75, 1.5, 2.0, 3.0]

    enum Way: String, CaseIterable, Sendable {
        case playEpisode = "PlayEpisode"
        case next = "Next"
        case autoNext = "auto-next"
    }

    /// One switch of the matrix.
    struct Step: CustomStringConvertible {
        var from: FormatShow.Format
        var to: FormatShow.Format
        var rate: Double
        var trim: Bool
        var description: String { "\(from.rawValue)→\(to.rawValue) at \(rate)× trim-silence \(trim ? "on" : "off")" }
    }

    /// The matrix as one walk: stepping by d (1…4) five times from any
    /// format visits every pair (x, x+d mod 5), so four strides pass each of
    /// the 20 ordered pairs once and end where they began. Five such circuits
    /// per trim setting, each shifting which rate goes with which pair, give
    /// every pair every rate.
    static func steps() -> [Step] {
        let formats = FormatShow.Format.allCases
        var walk: [(Int, Int)] = []
        var at = 0
        for stride in 1..<formats.count {
            for _ in formats.indices {
                walk.append((at, (at + stride) % formats.count))
                at = (at + stride) % formats.count
            }
        }
        var steps: [Step] = []
        for trim in [false, true] {
            for circuit in rates.indices {
                for (index, (from, to)) in walk.enumerated() {
                    steps.append(Step(from: formats[from], to: formats[to],
                                      rate: rates[(index + circuit) % rates.count], trim: trim))
                }
            }
        }
        return steps
    }

    @Test func theWalkCoversEveryPairAtEveryRateWithTrimOffAndOn() {
        let steps = Self.steps()
        #expect(steps.count == 200)
        #expect(Set(steps.map { "\($0)" }).count == 200)
        for (previous, step) in zip(steps, steps.dropFirst()) { #expect(previous.to == step.from) }
    }

    @Test func everyFormatPairAtEveryRateSwitchedEveryWay() async throws {
        let show = try await FormatShow(in: EpisodeServer.audioDirectory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for way in Way.allCases {
                group.addTask { try await Self.run(way, show: show) }
            }
            try await group.waitForAll()
        }
    }

    /// Walks the matrix switching one way; stops at the first step that fails.
    static func run(_ way: Way, show: FormatShow) async throws {
        let podsd = try await PodsdProcess.start(extraArguments: way == .autoNext ? [] : ["--no-auto-next"])
        let ids = try await show.subscribe(podsd)
        let player = podsd.client, library = LibraryClient(podsd.client)
        let steps = steps()
        var trim = false
        try await player.setRate(steps[0].rate)
        try await library.play(episode: ids[steps[0].from] ?? 0)
        try await ListeningScenario.waitForPosition(player, timeout: .seconds(10)) { $0 > 0.2 }
        let started = ContinuousClock.now
        var secondWindows: [String] = []
        for (number, step) in steps.enumerated() {
            let label = "\(way.rawValue) step \(number + 1) of \(steps.count), \(step)"
            do {
                if step.trim != trim {
                    try await PodsPlayerClient(player).setConfig(podcast: nil, key: "trim-silence", value: String(step.trim))
                    trim = step.trim
                }
                let target = ids[step.to] ?? 0
                // The rate changes in the middle of the episode playing.
                try await player.setRate(step.rate)
                switch way {
                case .playEpisode:
                    try await library.play(episode: target)
                case .next:
                    try await library.enqueue([target], at: 0)
                    try await player.next()
                case .autoNext:
                    try await library.enqueue([target], at: 0)
                    // A tenth of a second of playing before the end.
                    try await player.setPosition(.milliseconds(Int64(Double(show.seconds) * 1000 - 100 * step.rate)))
                }
                try await waitForStatus(player, label) { $0.episodeId == target && $0.state == .playing }
                // A seek right after the switch, past where any earlier step
                // left the episode (its resume position).
                try await player.setPosition(.seconds(8))
                if try await expectPlaying(player, at: step.rate, after: 8, label) { secondWindows.append(label) }
            } catch {
                let status = try? await player.status()
                let exit = await podsd.waitForExit(timeout: .milliseconds(500))
                Issue.record("\(label): \(error); status \(String(describing: status))\(exit.map { "; podsd exited with \($0): \(podsd.errorOutput().suffix(800))" } ?? "")")
                return
            }
        }
        print("format switches \(way.rawValue): \(steps.count) switches in \(ContinuousClock.now - started), "
              + "\(secondWindows.count) needing a second window")
        // The second window forgives GStreamer's catch-up after a seek now and then, not a glitch at every switch.
        #expect(secondWindows.count <= max(2, steps.count / 20), "second windows: \(secondWindows)")
        #expect(podsd.isRunning)
    }

    /// Polls the player's status until `condition` holds.
    static func waitForStatus(_ player: PlayerClient, _ label: String, timeout: Duration = .seconds(10),
                              _ condition: (PlayerStatus) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        var last: PlayerStatus?
        while ContinuousClock.now < deadline {
            let status = try await player.status()
            if condition(status) { return }
            last = status
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestSupportError("\(label): not there within \(timeout); last \(String(describing: last))")
    }

    /// Checks that the position runs from past `start` at `rate` (within a
    /// third): two readings 150 ms apart, each timed at its call's midpoint.
    /// Right after a seek GStreamer's position can lag and then jump to
    /// catch up: seen only in an Opus episode just after an auto-next into
    /// it, up to 1.8× the rate over the first window on loaded cores (CI
    /// failed once on 2.7× at 2×), and every time the next window ran at
    /// the rate within 2%. So a window that misses is followed by a second,
    /// which must hold; a stall or a wrong rate misses both. Returns whether
    /// the second was needed (the caller counts them: a few percent at most).
    @discardableResult
    static func expectPlaying(_ player: PlayerClient, at rate: Double, after start: Double, _ label: String) async throws -> Bool {
        try await ListeningScenario.waitForPosition(player, timeout: .seconds(10), every: .milliseconds(2)) { $0 > start + 0.01 }
        let status = try await player.status()
        guard status.rate == rate else { throw TestSupportError("Rate is \(status.rate)") }
        // A seek that overtook another can report the earlier one's
        // position for a moment before its own: the first reading is taken
        // once the position is past `start` twice running.
        var first = try await reading(player)
        for _ in 0..<50 where first.position <= start + 0.01 {
            try await Task.sleep(for: .milliseconds(2))
            first = try await reading(player)
        }
        try await Task.sleep(for: .milliseconds(150))
        let second = try await reading(player)
        let firstSpeed = speed(from: first, to: second)
        guard abs(firstSpeed / rate - 1) >= 0.33 else { return false }
        try await Task.sleep(for: .milliseconds(150))
        let third = try await reading(player)
        let secondSpeed = speed(from: second, to: third)
        guard abs(secondSpeed / rate - 1) < 0.33 else {
            throw TestSupportError("the position moved at \(firstSpeed)× then \(secondSpeed)× over two windows of "
                                   + "\((third.at - second.at) / .seconds(1)) s (from \(first.position) s)")
        }
        return true
    }

    static func speed(from first: (at: ContinuousClock.Instant, position: Double),
                      to second: (at: ContinuousClock.Instant, position: Double)) -> Double {
        (second.position - first.position) / ((second.at - first.at) / .seconds(1))
    }

    static func reading(_ player: PlayerClient) async throws -> (at: ContinuousClock.Instant, position: Double) {
        let before = ContinuousClock.now
        let position = Double(try await player.property("Position").int64Value ?? 0) / 1_000_000
        let after = ContinuousClock.now
        return (before + (after - before) / 2, position)
    }
}
