import Foundation
import Logging
import PodsConcurrency
import PodsFeeds
import PodsLibrary
import PodsSettings

/// When a podcast is refreshed next: `refresh-interval` after its last
/// attempt, twice as long after each failure in a row (up to a day, or the
/// interval when that is longer), and spread by a jitter of ±10% so a
/// library's feeds do not all come due together. A show that says how
/// often it comes out (`podcast:updateFrequency`) waits up to a quarter of
/// that, at most a day (a weekly show is checked daily, a daily one every
/// six hours); a show that says it is complete, a week.
package struct RefreshSchedule: Sendable, Equatable {
    /// Seconds; 0: never.
    package let interval: TimeInterval

    package init(interval: TimeInterval) { self.interval = interval }

    package static let longestBackoff: TimeInterval = 86400
    /// The longest wait a show's own update frequency sets.
    package static let longestFrequencyWait: TimeInterval = 86400
    /// How often a show that says it is complete is checked (it may come back).
    package static let completeShowInterval: TimeInterval = 7 * 86400
    package static let jitter = 0.1

    /// nil when podsd never refreshes by itself.
    package func next(for podcast: Podcast) -> Date? {
        guard interval > 0 else { return nil }
        guard let last = podcast.lastRefreshedAt else { return Date(timeIntervalSince1970: 0) }
        var delay = interval
        if let frequency = podcast.details.updateFrequency {
            if frequency.complete {
                delay = max(interval, Self.completeShowInterval)
            } else if let period = frequency.period {
                delay = max(interval, min(period / 4, Self.longestFrequencyWait))
            }
        }
        if podcast.refreshFailures > 0 {
            delay = min(delay * pow(2, Double(min(podcast.refreshFailures, 30))), max(Self.longestBackoff, delay))
        }
        // The same podcast and attempt always get the same jitter.
        var mixed = UInt64(bitPattern: podcast.id) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(max(0, last.timeIntervalSince1970 * 1000))
        mixed = (mixed ^ (mixed >> 31)) &* 0xBF58_476D_1CE4_E5B9
        let unit = Double(mixed % 20_001) / 10_000 - 1  // -1...1
        return last.addingTimeInterval(delay * (1 + Self.jitter * unit))
    }
}

/// Refreshes podcasts in the background as they come due (see
/// `RefreshSchedule`), one round at a time, then runs the auto-downloads.
/// It sleeps until the next podcast is due (at most an hour, in case the
/// clock moved), and is woken when the settings or the podcasts change.
package actor RefreshScheduler {
    private let subscriptions: Subscriptions
    private let logger: Logger
    private var sleeper: Task<Void, Never>?
    /// The round under way, cancelled at shutdown (its transfers end at once).
    private var round: Task<Duration?, Never>?
    private var stopped = false
    /// A poke came since the schedule was last looked at (during a round: the
    /// sleep after it would use what the round started with).
    private var poked = false

    /// The longest sleep between looks at the schedule.
    package static let longestSleep: Duration = .seconds(3600)

    private let library: Library
    private let preferences: PreferenceStore

    /// `subscriptions` refreshes each round, with the follow-up `pods refresh` has.
    package init(subscriptions: Subscriptions, library: Library, preferences: PreferenceStore, logger: Logger) {
        self.subscriptions = subscriptions
        self.library = library
        self.preferences = preferences
        self.logger = logger
        // A podcast added or removed, or a refresh's time, moves the schedule.
        library.changes.follow { [weak self] changes in if changes.podcasts { self?.poke() } }
    }

    /// The schedule as the settings say now.
    package nonisolated var schedule: RefreshSchedule {
        RefreshSchedule(interval: preferences.value(.refreshInterval, podcast: nil).numberValue ?? 3600)
    }

    /// Looks at the schedule again now (the settings or the podcasts changed).
    package nonisolated func poke() { Task { await wake() } }

    /// Stops: the round under way is cancelled (what it has not written is
    /// left for the next start; each feed is written whole or not at all).
    package func finish() {
        stopped = true
        round?.cancel()
        sleeper?.cancel()
    }

    private func wake() {
        poked = true
        sleeper?.cancel()
    }

    package func run() async {
        while !stopped {
            poked = false
            let round = Task { await refreshDue() }
            self.round = round
            let wait = await round.value
            guard !stopped else { return }
            if poked { continue }  // the settings or the podcasts changed during the round: look again
            let sleeper = Task { _ = try? await Task.sleep(for: min(wait ?? Self.longestSleep, Self.longestSleep)) }
            self.sleeper = sleeper
            await sleeper.value
        }
    }

    /// Refreshes every podcast that is due; returns how long until the next one is.
    private func refreshDue() async -> Duration? {
        let library = library
        let schedule = schedule
        guard schedule.interval > 0 else { return nil }
        guard let podcasts = try? await LibraryWork.lane.run({ () throws(LibraryError) in try library.refreshStates() }) else { return nil }
        let now = Date()
        let due = podcasts.filter { (schedule.next(for: $0) ?? .distantFuture) <= now }.map(\.id)
        if !due.isEmpty {
            do throws(SessionError) {
                let summaries = try await subscriptions.refresh(due, waitForFollowUp: true)
                guard !Task.isCancelled else { return nil }  // shutting down
                let failed = summaries.filter { $0.error != nil }.count
                logger.info("background refresh: \(summaries.count) feeds, \(summaries.filter(\.changed).count) changed, \(failed) failed")
            } catch {
                logger.error("background refresh: \(error)")
            }
        }
        guard let after = try? await LibraryWork.lane.run({ () throws(LibraryError) in try library.refreshStates() }) else { return nil }
        let next = after.compactMap { schedule.next(for: $0) }.min()
        return next.map { .milliseconds(Int64(max(0, $0.timeIntervalSinceNow) * 1000) + 10) }
    }
}
