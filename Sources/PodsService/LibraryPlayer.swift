import Foundation
import Logging
import PodsClient
import PodsDBus
import PodsFeeds
import PodsLibrary
import PodsPlayback

/// Joins the library to the player: plays episodes with their metadata,
/// saves progress as it comes, resumes the last episode on launch (paused),
/// marks finished episodes completed and goes on to the next one.
///
/// Progress and end-of-episode events arrive in order on one stream and
/// are handled one at a time, so a write never overtakes another.
actor LibraryPlayer {
    /// What the controller reports that concerns the library.
    enum Event: Sendable {
        case progress(episodeID: Int64, position: Duration, duration: Duration?)
        case ended(episodeID: Int64)
        /// Something that is not a library episode was loaded.
        case otherTrack
    }

    let library: Library
    let refresher: FeedRefresher
    private let controller: PlayerController
    private let logger: Logger
    private let signals: LibrarySignals
    private let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation
    /// Go on to the next episode at the end of one.
    private let autoNext: Bool
    /// An episode counts as played once this little of it is left.
    private let completionStretch: Duration

    init(library: Library, controller: PlayerController, signals: LibrarySignals, logger: Logger,
         autoNext: Bool = true, completionStretch: Duration = .zero) {
        self.autoNext = autoNext
        self.completionStretch = completionStretch
        self.library = library
        self.refresher = FeedRefresher(library: library)
        self.controller = controller
        self.signals = signals
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream()
    }

    /// Called synchronously from the controller's observer.
    nonisolated func send(_ event: Event) { eventSink.yield(event) }

    /// Handles events until `finish()`; the last progress is written before it returns.
    func run() async {
        for await event in events { await handle(event) }
    }

    nonisolated func finish() { eventSink.finish() }

    // MARK: - Playing episodes

    /// Plays an episode from where the listener stopped (from 0 if completed).
    func play(episodeID: Int64) async throws(DBusError) {
        let episode = try Self.mapped { () throws(LibraryError) in try library.startPlaying(episodeID) }
        signals.statusChanged(episodeID)
        try await load(episode, paused: false)
    }

    /// Loads the currently-playing episode paused at its saved position.
    func resume() async {
        do {
            guard let episode = try library.currentEpisode() else { return }
            try await load(episode, paused: true)
            logger.info("resumed episode \(episode.id) paused at \(Int(episode.position)) s")
        } catch {
            logger.error("could not resume the last episode: \(error)")
        }
    }

    private func load(_ episode: LibraryEpisode, paused: Bool) async throws(DBusError) {
        guard let url = episode.episode.enclosures.first?.url else {
            throw DBusError(name: LibraryNames.Error.failed, message: "episode \(episode.id) has no audio to play")
        }
        let source: MediaSource
        do throws(PlaybackError) {
            source = try MediaSource(uri: url)
        } catch {
            throw DBusError(name: LibraryNames.Error.failed, message: error.message)
        }
        let metadata = EpisodeMetadata(
            episodeID: episode.id, podcastID: episode.podcastId, title: episode.episode.title,
            podcastTitle: episode.podcastTitle, author: episode.episode.author ?? episode.podcastAuthor,
            artworkURL: episode.episode.artworkURL ?? episode.podcastArtworkURL)
        do throws(PlaybackError) {
            try await controller.open(source, episode: metadata, startingAt: .seconds(episode.position), paused: paused)
        } catch {
            throw DBusError(name: LibraryNames.Error.failed, message: "could not play \(url): \(error.message)")
        }
    }

    // MARK: - Events

    private func handle(_ event: Event) async {
        switch event {
        case .progress(let id, let position, let duration):
            let nearEnd = duration.map { completionStretch > .zero && $0 - position <= completionStretch } ?? false
            do {
                try library.saveProgress(id, position: position / .seconds(1), completed: nearEnd ? true : nil)
            } catch {
                logger.error("could not save progress: \(error)")
            }
        case .ended(let id):
            do {
                try library.markCompleted(id, true)
                signals.statusChanged(id)
                guard autoNext, let next = try library.nextEpisode(after: id) else { return }
                try await play(episodeID: next.id)
                signals.queueChanged()
            } catch {
                logger.error("after episode \(id) ended: \(error)")
            }
        case .otherTrack:
            do { try library.clearCurrentEpisode() } catch { logger.error("\(error)") }
        }
    }

    // MARK: - Errors

    /// Runs a library call, turning its error into the D-Bus error clients see.
    static func mapped<T>(_ body: () throws(LibraryError) -> T) throws(DBusError) -> T {
        do {
            return try body()
        } catch {
            throw Self.dbusError(error)
        }
    }

    static func dbusError(_ error: LibraryError) -> DBusError {
        let name = switch error.code {
        case .notFound: LibraryNames.Error.notFound
        case .ambiguous: LibraryNames.Error.ambiguous
        case .duplicate: LibraryNames.Error.duplicate
        case .database, .feed: LibraryNames.Error.failed
        }
        return DBusError(name: name, message: error.message)
    }
}

/// Emits the library interface's signals, so no client polls.
struct LibrarySignals: Sendable {
    let connection: DBusConnection

    func podcastsChanged() { emit("PodcastsChanged") }
    func episodesChanged(_ podcastID: Int64) { emit("EpisodesChanged", [.int64(podcastID)]) }
    func statusChanged(_ episodeID: Int64) { emit("EpisodeStatusChanged", [.int64(episodeID)]) }
    func queueChanged() { emit("QueueChanged") }
    func refreshProgress(_ done: Int, _ total: Int) {
        emit("RefreshProgress", [.uint32(UInt32(clamping: done)), .uint32(UInt32(clamping: total))])
    }

    private func emit(_ member: String, _ arguments: [DBusValue] = []) {
        try? connection.emitSignal(path: LibraryNames.objectPath, interface: LibraryNames.interface,
                                   member: member, arguments: arguments)
    }
}
