import Foundation
import Logging
import PodsCache
import PodsChapters
import PodsFeedParser
import PodsHTTP
import PodsLibrary
import PodsPlayback
import PodsPlayer

/// The playback use case: joins the library to the player. It plays
/// episodes with their metadata, saves progress as it comes, resumes the
/// last episode on launch (paused), marks finished episodes completed and
/// goes on to the next one, and keeps `Next`/`Previous` true to the library
/// (it follows the library's changes). It alone owns what is loaded.
///
/// Progress and end-of-episode events arrive in order on one stream and
/// are handled one at a time, so a write never overtakes another.
package actor Playback {
    // State its extensions (Playback+Navigation, Playback+Sync) share is
    // internal; nothing outside the playback files touches it.
    /// What the controller reports that concerns the library.
    package enum Event: Sendable {
        /// `load`: the controller's load the event is about (`TrackInfo.load`).
        case progress(episodeID: Int64, position: Duration, duration: Duration?, load: Int)
        /// `continues` false: the sleep timer waited for this end, so the
        /// next episode loads paused.
        case ended(episodeID: Int64, continues: Bool, load: Int)
        /// Something that is not a library episode was loaded, by the
        /// controller's load `load` (`TrackInfo.load`).
        case otherTrack(load: Int)
        /// The episode began playing (from paused, stopped or another track) at `position`.
        case startedPlaying(episodeID: Int64, position: Duration)
        /// The episode stopped playing: paused, stopped, ended or replaced.
        case stoppedPlaying(Stop)
        /// Resumed once every event sent before it is handled (`eventsHandled()`).
        case handled(CheckedContinuation<Void, Never>)
    }

    /// An episode that stopped playing, as the controller told it then.
    package struct Stop: Sendable {
        package var episodeID: Int64
        /// Where it stopped (the place a pause reported).
        package var position: Duration
        /// Its length as known then.
        package var duration: Duration?
        /// When it stopped.
        package var at: Date
    }

    let library: Library
    /// Range caches and downloads; nil streams every episode plainly.
    let mediaCache: MediaCache?
    let artwork: ArtworkCache?
    let controller: PlayerController
    let logger: Logger
    private let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation
    /// The settings: config.toml's, with each podcast's own over them.
    let preferences: PreferenceStore
    /// The loaded episode's podcast's settings, as it loaded (or as changed since).
    package var playing = PlaybackPreferences()
    /// The cache the loaded episode plays from.
    private var playingCache: EpisodeCache?
    /// The episode loaded, for reloading it when its cache cannot go on.
    package var loaded: LibraryEpisode?
    /// The number (`PlayerController.loads`) of the load that put `loaded` in
    /// place. Every load takes its number before its first await; a load
    /// that finds it is no longer the latest after one of its awaits was
    /// overtaken: it lets go of what it opened and gives way, so the last
    /// load wins and no cache is left open. An event is about the latest
    /// load, or old news: one comparison.
    private var loadedLoad = 0
    /// Episodes played before the loaded one in this run, newest last, for `Previous`.
    package var history: [Int64] = []
    /// The most episodes `history` keeps.
    package static let historyLength = 100
    let chapterLoader: ChapterLoader
    /// The episode being loaded, on disk, so a crash while loading it is not repeated at every start.
    let loadMarker: LoadMarker
    /// Set by `stop()`: podsd is stopping cleanly, and no load is marked.
    private var stopping = false
    /// The episode the last run crashed loading, and how many of its loads crashed (read once, at the resume).
    private var crashedLoad: (episodeID: Int64, attempts: Int)?
    /// Where the episode playing began this stretch, for the sync's play action.
    package var playStart: (episodeID: Int64, position: Int)?
    /// The load that plays from a bookmark (`play(episodeID:detourFrom:)`): what it
    /// plays moves nothing of the episode's (its resume position, its played
    /// mark, the sync's record) until another load takes its place.
    private var detourLoad: Int?

    package init(library: Library, controller: PlayerController, preferences: PreferenceStore, mediaCache: MediaCache?,
                 artwork: ArtworkCache?, logger: Logger) {
        self.mediaCache = mediaCache
        self.artwork = artwork
        self.preferences = preferences
        self.library = library
        self.controller = controller
        self.logger = logger
        self.chapterLoader = ChapterLoader(library: library, artwork: artwork, logger: logger)
        self.loadMarker = LoadMarker(directory: library.directory)
        (events, eventSink) = AsyncStream.makeStream()
    }

    /// Called synchronously from the controller's followers (`ListeningRules`).
    package nonisolated func send(_ event: Event) { eventSink.yield(event) }

    /// Returns once every event sent before this call is handled: the
    /// place a pause reported is in the library.
    package nonisolated func eventsHandled() async {
        await withCheckedContinuation { send(.handled($0)) }
    }

    /// Handles events until `finish()`; the last progress is written before it returns.
    package func run() async {
        for await event in events { await handle(event) }
    }

    package nonisolated func finish() { eventSink.finish() }

    // MARK: - Playing episodes

    /// Plays an episode from where the listener stopped (from 0 if completed).
    /// `remember` puts the episode it replaces in the history `Previous` goes back through.
    /// `announced`: the controller's number for this load (`announceLoad`), when the caller announced it.
    /// `detourFrom`: plays from there as a detour (a bookmark's moment): the episode's resume
    /// position, played mark and queue place stay as they were, and the sync hears nothing of
    /// it. It is still the loaded episode (a restart resumes it at its saved position).
    package func play(episodeID: Int64, remember: Bool = true, paused: Bool = false, announced: Int? = nil,
                      detourFrom: Duration? = nil, at start: Duration? = nil) async throws(SessionError) {
        // The load's number before anything waits: another track's event handled from here on
        // (this actor runs others while a play waits) is older than this play.
        let number = announced ?? controller.loads.take()
        let before = loaded?.id
        if announced == nil { await controller.announce(number) }  // the player hears of it before the library does
        let episode = try SessionError.mapped { () throws(LibraryError) in
            guard detourFrom != nil else { return try library.startPlaying(episodeID) }
            try library.makeCurrent(episodeID)
            return try library.episode(episodeID)
        }
        if remember, let before, before != episodeID {
            history.append(before)
            if history.count > Self.historyLength { history.removeFirst() }
        }
        if detourFrom != nil { detourLoad = number }
        do throws(SessionError) { try await load(episode, paused: paused, at: detourFrom ?? start, number: number) } catch {
            // A play that failed (not one a newer load overtook) leaves the library on the
            // episode that played before, so the next start resumes that one.
            if controller.loads.isLatest(number), before != episodeID {
                do throws(LibraryError) { try library.makeCurrent(before) } catch { logger.error("\(error)") }
            }
            throw error
        }
    }

    /// Plays `episodeID` from `seconds` in: a jump the listener chose, so
    /// its resume position follows from there. A time no episode has, or
    /// one past this episode's end, is an error and changes nothing.
    package func play(episodeID: Int64, from seconds: Double) async throws(SessionError) {
        guard let start = MediaSeconds.checked(seconds) else {
            throw SessionError.invalidArgument("a position is 0 to \(Int(MediaSeconds.maximum)) seconds")
        }
        let duration = try SessionError.mapped { () throws(LibraryError) in try library.episode(episodeID).episode.duration }
        if let duration, start >= duration {
            throw SessionError.invalidArgument("episode \(episodeID) is \(Int(duration)) s long: \(Int(start)) s is past its end")
        }
        try await play(episodeID: episodeID, at: .mediaSeconds(start))
    }

    /// Whether `load` plays from a bookmark (nothing it plays is written to the episode).
    func isDetour(_ load: Int) -> Bool { detourLoad == load }
    /// Whether what is loaded plays from a bookmark.
    var loadedIsDetour: Bool { isDetour(loadedLoad) }

    /// Loads the currently-playing episode paused at its saved position.
    package func resume() async {
        guard !stopping else { return }
        do {
            guard let episode = try library.currentEpisode() else { return }
            crashedLoad = loadMarker.crashedLoad()
            if let died = crashedLoad, died.episodeID == episode.id, died.attempts >= LoadMarker.attemptsAllowed {
                skipAfterCrash(episode)
                return
            }
            try await load(episode, paused: true)
            logger.info("resumed episode \(episode.id) paused at \(MediaSeconds.whole(episode.position, rounding: .down) ?? 0) s")
            // Listening a kill cut short of its record is recorded now, for the sync.
            try library.recordUnrecordedListening(episode.id)
        } catch {
            logger.error("could not resume the last episode: \(error)")
        }
    }

    /// `number`: the load's number, taken and announced by the caller (nil: this takes one).
    /// A `preferred-format` alternate that does not play (a 404, a server
    /// down) gives way to the feed's own file (ADVERSARIAL-5, 11: the
    /// episode stayed unplayable while the feed's own answered).
    private func load(_ episode: LibraryEpisode, paused: Bool, at position: Duration? = nil, streaming: Bool = false,
                      number: Int? = nil) async throws(SessionError) {
        let load = number ?? controller.loads.take()
        if number == nil { await controller.announce(load) }
        guard let url = preferences.audioURL(of: episode) else {
            throw SessionError.failed("episode \(episode.id) has no audio to play")
        }
        do throws(SessionError) {
            try await self.load(episode, from: url, paused: paused, at: position, streaming: streaming, load: load)
        } catch {
            guard let own = episode.episode.enclosures.first?.url, own != url, controller.loads.isLatest(load) else { throw error }
            logger.warning("episode \(episode.id): \(error.message); playing the feed's own file, \(own)")
            try await self.load(episode, from: own, paused: paused, at: position, streaming: streaming, load: load)
        }
    }

    private func load(_ episode: LibraryEpisode, from url: String, paused: Bool, at position: Duration?, streaming: Bool,
                      load: Int) async throws(SessionError) {
        let (source, cache) = try await source(for: episode.id, url: url, duration: episode.episode.duration, streaming: streaming)
        guard controller.loads.isLatest(load) else {
            if let cache { await mediaCache?.release(cache) }
            throw Self.overtaken(episode.id)
        }
        // The cache of what played before goes once this one takes its place.
        let previous = playingCache
        playingCache = cache
        loaded = episode
        loadedLoad = load
        if let previous { Task { [mediaCache] in await mediaCache?.release(previous) } }
        let remoteArt = episode.episode.artworkURL ?? episode.podcastArtworkURL
        let localArt = if let remoteArt, let artwork { await artwork.cachedURI(for: remoteArt, policy: episode.urlPolicy) } else { String?.none }
        guard controller.loads.isLatest(load) else { throw Self.overtaken(episode.id) }  // the newer load owns the cache now
        let metadata = EpisodeMetadata(
            episodeID: episode.id, podcastID: episode.podcastId, title: episode.episode.title,
            podcastTitle: episode.podcastTitle, author: episode.episode.author ?? episode.podcastAuthor,
            artworkURL: localArt ?? remoteArt)
        if localArt == nil, let remoteArt { fetchArtwork(remoteArt, for: episode.id, policy: episode.urlPolicy) }
        playing = preferences.playback(for: episode.podcastId)
        // A fresh episode starts past its intro (unless the intro is the whole of it).
        var start = position ?? .seconds(MediaSeconds.checked(episode.position) ?? 0)
        if start == .zero, playing.skipIntro > 0, episode.episode.duration.map({ playing.skipIntro < $0 }) ?? true {
            start = .seconds(playing.skipIntro)
        }
        let rewind = isDetour(load) ? nil : smartRewind(podcast: episode.podcastId)
        if !paused, position == nil, let rewind { start = max(.zero, start - rewind(episode.id, start)) }
        await controller.setRewindBeforePlaying(rewind)
        if !stopping {
            let crashed = crashedLoad.flatMap { $0.episodeID == episode.id ? $0.attempts : nil } ?? 0
            loadMarker.begin(episode.id, attempts: crashed + 1)
        }
        do throws(PlaybackError) {
            try await controller.open(source, episode: metadata, startingAt: start, paused: paused, announced: load,
                                      rate: playing.speed, preferences: Self.trackPreferences(playing),
                                      loudness: playing.loudnessTarget == nil ? nil : knownLoudness(episode.id))
        } catch {
            if controller.loads.isLatest(load) { loadMarker.end() }
            throw SessionError.failed("could not play \(url): \(error.message)")
        }
        // Prerolled, its tags read: the load can no longer crash (a tag reader's crash is
        // guarded by the chapter loader's own stored attempt).
        if controller.loads.isLatest(load) {
            loadMarker.end()
            crashedLoad = nil
            // A load that prerolled replaces what a crashed one stored: its tags are read again (once).
            if let stored = try? library.chapterList(episode.id, .media, url: url), stored.error == Self.crashedLoadingError {
                try? library.deleteChapterList(episode.id, .media)
            }
        }
        guard controller.loads.isLatest(load) else { return }
        await refreshNeighbours()
        Task { await loadChapters(episode, url: url, media: cache, load: load) }
        Task { await loadTranscript(episode, load: load) }
    }

    /// What an episode's media chapters say after podsd crashed loading it (`skipAfterCrash`).
    static let crashedLoadingError = "podsd crashed while loading this file"

    /// podsd died loading `episode` (its audio or its chapters) in each of
    /// its last runs: it is not loaded at start, and its audio file's own chapters
    /// are not read again; said once, in the log. The listener's place in
    /// it is kept, and `pods play` plays it when asked.
    private func skipAfterCrash(_ episode: LibraryEpisode) {
        loadMarker.end()
        let url = preferences.audioURL(of: episode) ?? ""
        logger.error("podsd crashed while loading episode \(episode.id) (\(url)) \(LoadMarker.attemptsAllowed) times; not loading it at start, and not reading its chapter tags again")
        do {
            try library.clearCurrentEpisode()
            try library.saveChapterList(episode.id, .media, StoredChapterList(
                url: url, chapters: [], error: Self.crashedLoadingError))
        } catch {
            logger.error("\(error)")
        }
    }

    private static func overtaken(_ episodeID: Int64) -> SessionError {
        SessionError.failed("episode \(episodeID) did not play: a newer play took its place")
    }

    /// The episode's audio: through its range cache (which the caller then
    /// owns) for http(s), plainly when the cache cannot serve it (unknown
    /// length, full disk).
    private func source(for episodeID: Int64, url: String, duration: Double?,
                        streaming: Bool) async throws(SessionError) -> (MediaSource, EpisodeCache?) {
        let plain: MediaSource
        do throws(PlaybackError) { plain = try MediaSource(uri: url) } catch {
            throw SessionError.failed(error.message)
        }
        guard !streaming, let mediaCache, HTTPClient.isHTTP(url) else { return (plain, nil) }
        do throws(CacheError) {
            let cache = try await mediaCache.open(episodeID: episodeID, url: url, duration: duration)
            return (MediaSource(uri: url, media: cache), cache)
        } catch where error.code == .unknownLength || error.code == .diskFull || error.code == .file {
            logger.warning("episode \(episodeID) streams without the cache: \(error)")
            return (plain, nil)
        } catch {
            throw SessionError.failed("could not play \(url): \(error.message)")
        }
    }

    /// Fetches artwork that is not cached yet, then shows the local copy.
    private func fetchArtwork(_ url: String, for episodeID: Int64, policy: URLPolicy) {
        guard let artwork else { return }
        Task { [controller] in
            guard let local = await artwork.localURI(for: url, policy: policy) else { return }
            await controller.setArtwork(local, forEpisode: episodeID)
        }
    }

    /// What `pods status` adds: whether playback waits for bytes, and how
    /// much of the loaded episode is on disk.
    package func cacheStatus() -> (episodeID: Int64?, buffering: Bool, cached: Double?) {
        guard let loaded else { return (nil, false, nil) }
        guard let playingCache else {
            // Not played through the cache: a local podcast's file (its enclosures are files), or nothing yet.
            let local = loaded.episode.enclosures.first?.url.hasPrefix("file:") == true
            return (loaded.id, false, local ? 1 : nil)
        }
        return (loaded.id, playingCache.isBuffering, playingCache.cachedFraction)
    }

    // MARK: - Reloading

    /// Loads the episode again where it is, if it is the one loaded: its
    /// file changed on the server (its cache starts over), or the disk is
    /// full (`streaming`: it plays without the cache).
    package func reload(_ episodeID: Int64, streaming: Bool) async {
        guard let episode = loaded, episode.id == episodeID else { return }
        let state = await controller.currentState()
        guard state.track?.episode?.episodeID == episodeID else { return }
        let position = await controller.position()
        // A bookmark's detour stays one through the reload: its places are not the episode's (REVIEW-4, N16).
        let wasDetour = loadedIsDetour
        let number = controller.loads.take()
        await controller.announce(number)
        if wasDetour { detourLoad = number }
        do {
            try await load(episode, paused: state.status != .playing, at: position, streaming: streaming, number: number)
        } catch {
            logger.error("could not reload episode \(episodeID): \(error.message)")
        }
    }

    /// podsd is stopping cleanly: a load under way (or begun from here on)
    /// is no death while loading, so its marker goes (`LoadMarker`). Then
    /// lets go of the playing cache and waits for every download to save.
    package func stop() async {
        stopping = true
        loadMarker.end()
        if let playingCache { await mediaCache?.release(playingCache) }
        playingCache = nil
        await mediaCache?.shutdown()
    }

    // MARK: - Events

    private func handle(_ event: Event) async {
        switch event {
        case .handled(let continuation):
            continuation.resume()
        case .progress(let id, let position, let duration, let load):
            // A newer load of the same episode (a replay from the start) owns its place.
            if loaded?.id == id, !controller.loads.isLatest(load) { return }
            if isDetour(load) { return }  // a bookmark's play leaves the resume position where it was
            let stretch = playing.completionStretch(duration: duration)
            let nearEnd = duration.map { stretch > .zero && $0 - position <= stretch } ?? false
            do {
                try library.saveProgress(id, position: position / .seconds(1), completed: nearEnd ? true : nil)
            } catch {
                logger.error("could not save progress: \(error)")
            }
        case .ended(let id, let continues, let load):
            // An end older than the latest load: the episode did end (it is played), unless that load
            // plays the same episode again, which is then the listener's; either way nothing follows it.
            let latest = controller.loads.isLatest(load)
            if !latest, loaded?.id == id { return }
            do {
                if !isDetour(load) { try library.markCompleted(id, true) }
                // An end that comes after another play began (a PlayEpisode as the episode ended) starts nothing;
                // the end of a short episode (or one resumed at its end) that comes while its own play is
                // still under way does.
                guard latest, loaded?.id == id, loadedLoad == load else { return }
                guard preferences.playback(for: nil).autoNext, let next = try library.nextEpisode(after: id) else { return }
                try await play(episodeID: next.id, paused: !continues)
            } catch {
                logger.error("after episode \(id) ended: \(error)")
            }
        case .startedPlaying(let id, let position):
            playStart = (id, Int((position / .seconds(1)).rounded(.down)))
        case .stoppedPlaying(let stop):
            await stoppedPlaying(stop)
        case .otherTrack(let load):
            // A load taken after it (a play begun meanwhile, too) owns the player; an episode
            // load still under way has an older number, and gives way.
            guard controller.loads.isLatest(load) else { return }
            // All of it in this turn, before anything waits: a play begun while this waited would be undone.
            loaded = nil
            playing = preferences.playback(for: nil)
            let released = playingCache
            playingCache = nil
            do { try library.clearCurrentEpisode() } catch { logger.error("\(error)") }
            if let released { await mediaCache?.release(released) }
            guard controller.loads.isLatest(load) else { return }  // a play's own preferences stand
            await controller.setTrackPreferences(Self.trackPreferences(playing))
        }
    }
}
