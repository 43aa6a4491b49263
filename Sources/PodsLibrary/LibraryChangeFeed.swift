import Dispatch
import Foundation
import PodsConcurrency
import Synchronization

/// The library's announcements: after each commit, what it changed
/// (`LibraryChanges`), to every follower, in order, one batch at a time.
/// What is posted while followers run is merged and delivered as one batch
/// after them, and while nobody waits for a delivery batches are at least
/// `spacing` apart: a change after a quiet spell, or one a caller waits for,
/// goes at once, but a burst of writes (a 200-feed import, a refresh)
/// reaches each follower at most twenty times a second, not once per write. (Delivered once per commit, the followers' reads took turns
/// with the import's own work on the library's lane, and a 200-feed import
/// took 2.9 s instead of 2.2 s.)
///
/// A follower must not wait for `delivered()`: it would wait for itself.
public final class LibraryChangeFeed: Sendable {
    public typealias Follower = @Sendable (LibraryChanges) async -> Void

    private struct State {
        var followers: [Follower] = []
        var pending = LibraryChanges()
        /// Batches posted, and batches whose followers have all run.
        var posted: UInt64 = 0
        var delivered: UInt64 = 0
        var delivering = false
        /// When the last batch was taken (the monotonic clock, as `pause` waits on it).
        var lastBatch: DispatchTime?
        var waiters: [(batch: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// How many times what the library's lists hold may have changed:
    /// `listening` at each post of anything but downloads and artwork,
    /// `downloads` at each post of downloads and each commit that wrote a
    /// download's row. A playlist's count is read again only when its
    /// generation moved (`Library.playlists`).
    public struct Generations: Sendable, Equatable {
        public var listening: UInt64 = 0
        public var downloads: UInt64 = 0
    }

    private let counted = Mutex(Generations())

    /// The generations now: read one before reading what it guards.
    public var generations: Generations { counted.withLock { $0 } }

    /// A commit wrote a download's row (the session posts what a listener sees of it).
    func downloadsWritten() { counted.withLock { $0.downloads &+= 1 } }

    /// The least time between two batches of a burst.
    public let spacing: Duration
    private let spacingNanoseconds: UInt64

    /// Where a burst's pause is slept: a relative sleep on a thread of its own.
    /// (`Task.sleep` and Dispatch's timers wait for an instant on a clock, and
    /// under libfaketime, which the sync tests run podsd under to put its
    /// clock an hour behind, that instant never came: a sync waiting for its
    /// delivery hung.)
    private static let pauses = BlockingLane("pods.changes", width: 1)

    /// How often a pause looks for a caller that began waiting: it ends at the next look.
    private static let pauseSliceMicroseconds: UInt64 = 2_000

    /// Sleeps up to `nanoseconds` (never more than `spacing`), in slices, and
    /// ends early once somebody waits for a delivery: a caller that wrote
    /// (a mark, a queue edit) is answered at once, not at the burst's pace.
    /// (Its write is posted before it begins to wait, so the batch's pause
    /// has always begun by then: one `pods mark` after another took 50 ms each.)
    private func pause(nanoseconds: UInt64) async {
        let microseconds = min(nanoseconds, spacingNanoseconds) / 1000
        _ = await Self.pauses.run {
            var left = microseconds
            while left > 0, self.state.withLock({ $0.waiters.isEmpty }) {
                let slice = min(left, Self.pauseSliceMicroseconds)
                usleep(useconds_t(slice))
                left -= slice
            }
        }
    }

    /// `spacing`: the least time between two batches that nobody waits for
    /// (twenty a second; a test makes it long to see the pacing without a clock).
    public init(spacing: Duration = .milliseconds(50)) {
        self.spacing = spacing
        spacingNanoseconds = UInt64(max(0, spacing.components.seconds)) * 1_000_000_000
            + UInt64(max(0, spacing.components.attoseconds) / 1_000_000_000)
    }

    /// `follower` hears of every change posted from now on.
    public func follow(_ follower: @escaping Follower) {
        state.withLock { $0.followers.append(follower) }
    }

    /// Announces `changes` (the library does, after its commits; the
    /// session for what the library cannot see, as downloads and artwork).
    public func post(_ changes: LibraryChanges) {
        guard !changes.isEmpty else { return }
        counted.withLock { counted in
            if changes.touchesListening { counted.listening &+= 1 }
            if !changes.downloads.isEmpty { counted.downloads &+= 1 }
        }
        let start = state.withLock { state -> Bool in
            guard !state.followers.isEmpty else { return false }
            state.pending.merge(changes)
            state.posted += 1
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        if start { Task { await self.deliver() } }
    }

    /// Returns once every change posted before the call has reached every
    /// follower: a use case that wrote waits for it before it answers, so
    /// its caller sees the consequences (a signal, `CanGoNext`) first.
    public func delivered() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                guard state.delivered < state.posted else { return true }
                state.waiters.append((state.posted, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func deliver() async {
        while true {
            // Nothing more to deliver: done, at once (a pause now would only hold the next post back).
            let paceFrom = state.withLock { state -> DispatchTime?? in
                guard !state.pending.isEmpty else {
                    state.delivering = false
                    return nil
                }
                return .some(state.waiters.isEmpty ? state.lastBatch : nil)
            }
            guard let paceFrom else { return }
            // In a burst, wait for the spacing: what comes meanwhile joins this batch.
            // Only while nobody waits for the delivery: a caller's answer (a queue edit) never does.
            if let last = paceFrom {
                let since = DispatchTime.now().uptimeNanoseconds &- last.uptimeNanoseconds
                if since < spacingNanoseconds { await pause(nanoseconds: spacingNanoseconds - since) }
            }
            // Only this loop empties `pending`: what it saw is still there, with whatever came since.
            let next = state.withLock { state -> (LibraryChanges, UInt64, [Follower]) in
                defer { state.pending = LibraryChanges() }
                state.lastBatch = .now()
                return (state.pending, state.posted, state.followers)
            }
            let (changes, batch, followers) = next
            for follower in followers { await follower(changes) }
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.delivered = batch
                let ready = state.waiters.filter { $0.batch <= batch }.map(\.continuation)
                state.waiters.removeAll { $0.batch <= batch }
                return ready
            }
            for continuation in ready { continuation.resume() }
        }
    }
}
