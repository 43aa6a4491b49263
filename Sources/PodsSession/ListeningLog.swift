import Foundation
import Logging
import PodsLibrary
import PodsPlayer
import Synchronization

/// The listening log: every stretch an episode is heard, kept as a
/// `PlaySession` (what `pods stats` adds up). A stretch begins when an
/// episode plays (and is not waiting for data) and ends when it pauses,
/// stops, ends, jumps, changes speed or gives way to another; trimmed
/// silence stays inside it, which is how the log knows what trimming saved.
///
/// Fed on the player's turn (`observe`), so it only notes times; the
/// writes go, in order, to the library's lane from `run()`. A stretch
/// still playing is written every `checkpoint`, so a kill loses at most that.
package final class ListeningLog: Sendable {
    private struct Stretch {
        var episode: EpisodeMetadata
        var load: Int
        var rate: Double
        var startedAt: Date
        var began: ContinuousClock.Instant
        /// Where it began: the first position the player tells after it starts.
        var from: Duration?
        /// The latest position the player told, and when.
        var position: Duration?
        var positionAt: ContinuousClock.Instant
        var duration: Duration?
        var lastWrite: ContinuousClock.Instant

        /// The player told where it is (the first time: where the stretch began).
        mutating func noting(_ position: Duration, at now: ContinuousClock.Instant) {
            if from == nil { from = position }
            self.position = position
            positionAt = now
        }
    }

    private let stretch = Mutex<Stretch?>(nil)
    private let writes: AsyncStream<PlaySession>.Continuation
    private let pending: AsyncStream<PlaySession>
    private let library: Library
    private let logger: Logger
    private let checkpoint: Duration

    package init(library: Library, logger: Logger, checkpoint: Duration = .seconds(30)) {
        self.library = library
        self.logger = logger
        self.checkpoint = checkpoint
        (pending, writes) = AsyncStream.makeStream()
    }

    /// Follows the player (called for each of its changes, in order).
    package func observe(_ change: PlayerController.Change) {
        let now = ContinuousClock.now
        switch change {
        case .state(let state, _):
            let hearing = state.status == .playing && !state.isBuffering ? state.track : nil
            stretch.withLock { open in
                if let current = open, hearing?.episode?.episodeID != current.episode.episodeID
                    || hearing?.load != current.load || state.rate != current.rate {
                    end(current, at: now)
                    open = nil
                }
                if open == nil, let track = hearing, let episode = track.episode {
                    open = Stretch(episode: episode, load: track.load, rate: state.rate, startedAt: Date(), began: now,
                                   positionAt: now, duration: track.duration, lastWrite: now)
                }
            }
        case .position(let position, _):
            stretch.withLock { open in open?.noting(position, at: now) }
        case .progress(let episodeID, let position, let duration, let load):
            stretch.withLock { open in
                guard var current = open else { return }
                if current.episode.episodeID == episodeID, current.load == load { current.duration = duration ?? current.duration }
                current.noting(position, at: now)
                if now - current.lastWrite >= checkpoint {  // a stretch still playing is written now and then
                    if let session = session(current, at: now) { writes.yield(session) }
                    current.lastWrite = now
                }
                open = current
            }
        case .jumped(let from, let to):
            stretch.withLock { open in
                guard var current = open else { return }
                current.position = from
                current.positionAt = now
                end(current, at: now)
                current.startedAt = Date()
                current.began = now
                current.from = to
                current.position = to
                current.lastWrite = now
                open = current
            }
        case .seeked, .ended:
            break
        }
    }

    /// Writes what `observe` hands on until `finish()`.
    package func run() async {
        let library = library
        for await session in pending {
            do {
                try await LibraryWork.lane.run { () throws(LibraryError) in try library.keepPlaySession(session) }
            } catch {
                logger.error("could not keep a play session: \(error)")
            }
        }
    }

    /// podsd stops: the stretch playing ends here, and `run()` ends once it is written.
    package func finish() {
        let now = ContinuousClock.now
        stretch.withLock { open in
            if let current = open { end(current, at: now) }
            open = nil
        }
        writes.finish()
    }

    private func end(_ stretch: Stretch, at now: ContinuousClock.Instant) {
        if let session = session(stretch, at: now) { writes.yield(session) }
    }

    /// The stretch as a play session ending `now`; nil before the player told where it began.
    private func session(_ stretch: Stretch, at now: ContinuousClock.Instant) -> PlaySession? {
        guard let from = stretch.from, let position = stretch.position else { return nil }
        let seconds = (now - stretch.began) / .seconds(1)
        guard seconds > 0.05 else { return nil }
        // Where it is now: the last position told, moved on by the time since at the stretch's speed, within the episode.
        var to = position + (now - stretch.positionAt) * stretch.rate
        if let duration = stretch.duration { to = min(to, duration) }
        return PlaySession(episodeId: stretch.episode.episodeID, podcastId: stretch.episode.podcastID,
                           episodeTitle: stretch.episode.title, podcastTitle: stretch.episode.podcastTitle,
                           startedAt: stretch.startedAt, seconds: seconds, from: from / .seconds(1),
                           to: max(from, to) / .seconds(1), rate: stretch.rate)
    }
}

// MARK: - Reading the log

extension ListeningLog {
    /// Seconds heard and saved from `since` on (`pods stats`).
    package func stats(since: Date?) async throws(SessionError) -> ListeningStats {
        let library = library
        return try await LibraryWork.run { () throws(LibraryError) in try library.listeningStats(since: since) }
    }

    /// Play sessions oldest first from `since` on, `limit` from `offset` (`pods stats --export`).
    package func sessions(since: Date?, offset: Int, limit: Int) async throws(SessionError) -> [PlaySession] {
        let library = library
        return try await LibraryWork.run { () throws(LibraryError) in
            try library.playSessions(since: since, offset: offset, limit: limit)
        }
    }
}
