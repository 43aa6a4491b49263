import Foundation
import Logging
import PodsCache
import PodsConcurrency
import PodsFeeds
import PodsHTTP
import PodsLibrary
import PodsPlayer
import PodsSettings

/// The listening session of podsd, assembled once: each use case made
/// with what it uses and nothing reaching through another, and every
/// consequence registered here. podsd and the in-process tests build it
/// the same way.
///
/// Three things announce their changes, and the session's services follow
/// them here: the library (`Library.changes`: `Next`/`Previous`, the
/// search index, loudness, transcripts), the player (`PlayerController.follow`:
/// the listening rules, the log, the speed and volume kept) and the
/// settings (`PreferenceStore.follow`: each service its own keys).
/// Interfaces follow the same feeds for their signals; the composition
/// root wires none of it.
package struct Session: SessionService {
    package let library: Library
    package let controller: PlayerController
    package let preferences: PreferenceStore
    /// `pods config`'s edits, checked and written.
    package let settings: SettingsEdits
    /// Range caches and downloads; nil streams every episode plainly.
    package let mediaCache: MediaCache?
    package let artwork: ArtworkCache?
    /// Artwork rendered for terminals (`pods ui`).
    package let pictures: ArtworkPictures?
    package let playback: Playback
    package let downloads: Downloads
    package let subscriptions: Subscriptions
    package let edits: LibraryEdits
    package let bookmarks: Bookmarks
    /// The podcasts' rules: ignoring what arrives, tending downloads.
    package let rules: PodcastRules
    /// Playlists of rules and kept by hand, and which plays next.
    package let playlists: PlaylistService
    /// Every stretch of listening, for `pods stats`.
    package let listening: ListeningLog
    /// Keeps `pods find`'s index up with what the library wrote.
    package let searchIndex: SearchIndexer
    /// Measures downloads' loudness for levelling; nil without a cache.
    package let loudness: LoudnessSurvey?
    package let sync: SyncService
    package let scheduler: RefreshScheduler
    /// Downloads wait on a metered network (the interfaces tell it of the network).
    package let metered: MeteredDownloads
    /// Tells the desktop of new episodes; nil: nobody is told.
    package let announcer: (any NewEpisodeAnnouncer)?
    /// Keeps the speed and volume in the library as they change.
    private let recorder: SettingsRecorder
    /// Picks up a changed config.toml without a restart.
    private let configWatcher: ConfigWatcher?
    /// Opens once `start()` is done.
    private let startup = AsyncLatch()
    private let logger: Logger

    /// `cacheDirectory` nil: no cache, no downloads, no artwork.
    /// `announcer` is made with the session's playback (its "Play" action plays) and artwork.
    /// The speed and volume kept from the last run are the controller's
    /// before anything follows it.
    package init(library: Library, controller: PlayerController, preferences: PreferenceStore, credentials: CredentialStore?,
                 cacheDirectory: URL?, logger: Logger,
                 announcer makeAnnouncer: (Playback, ArtworkCache?) -> (any NewEpisodeAnnouncer)? = { _, _ in nil }) async {
        self.library = library
        self.controller = controller
        self.preferences = preferences
        self.logger = logger
        settings = SettingsEdits(preferences: preferences)
        let saved = Self.savedSettings(library, logger: logger)
        try? await controller.setRate(saved.rate)
        try? await controller.setVolume(saved.volume)
        recorder = SettingsRecorder(initial: saved)
        var feeds = FeedRefresher.spillingClient()
        feeds.options.credentials = credentials?.provider
        let refresher = FeedRefresher(library: library, http: feeds, arrivalRule: PodcastRules.arrivalRule(preferences))
        var media = HTTPClient()
        media.options.credentials = credentials?.provider
        mediaCache = cacheDirectory.map { MediaCache(directory: $0, library: library, http: media, logger: logger) }
        artwork = cacheDirectory.map { ArtworkCache(directory: $0, library: library) }
        pictures = artwork.map { ArtworkPictures(library: library, cache: $0) }
        let playback = Playback(library: library, controller: controller, preferences: preferences, mediaCache: mediaCache,
                                artwork: artwork, logger: logger)
        self.playback = playback
        announcer = makeAnnouncer(playback, artwork)
        downloads = Downloads(library: library, mediaCache: mediaCache, preferences: preferences, logger: logger)
        let subscriber = FeedSubscriber(refresher: refresher, credentials: credentials)
        let rules = PodcastRules(library: library, preferences: preferences, downloads: downloads, mediaCache: mediaCache,
                                 loadedEpisode: { await playback.loaded?.id }, logger: logger)
        self.rules = rules
        sync = SyncService(subscriber: subscriber, playback: playback, library: library, preferences: preferences,
                           credentials: credentials, logger: logger)
        subscriptions = Subscriptions(
            library: library, refresher: refresher, subscriber: subscriber, directories: DirectoryService(preferences: preferences),
            downloads: downloads, artwork: artwork, announcer: announcer, sync: sync, rules: rules, logger: logger)
        edits = LibraryEdits(library: library)
        playlists = PlaylistService(library: library, playback: playback)
        // The desktop's notifications tell of bookmarks too, where the announcer can.
        bookmarks = Bookmarks(library: library, playback: playback, controller: controller,
                              announcer: announcer as? any BookmarkAnnouncer)
        listening = ListeningLog(library: library, logger: logger)
        let loudness = if let cacheDirectory, let media = mediaCache?.directory {
            LoudnessSurvey(library: library, preferences: preferences, mediaDirectory: media, scratchDirectory: cacheDirectory,
                           playback: playback, logger: logger)
        } else { LoudnessSurvey?.none }
        self.loudness = loudness
        let searchIndex = SearchIndexer(library: library)
        self.searchIndex = searchIndex
        let scheduler = RefreshScheduler(subscriptions: subscriptions, library: library, preferences: preferences, logger: logger)
        self.scheduler = scheduler
        metered = MeteredDownloads(mediaCache: mediaCache, preferences: preferences)
        configWatcher = preferences.fileURL.map { file in
            ConfigWatcher(url: file) {
                if preferences.reload() { logger.info("config.toml changed; the new settings apply now") }
            }
        }
        // The player's changes, in order: the stretch heard, the speed and volume kept, what the library hears.
        let listeningRules = ListeningRules(player: playback, sync: sync, preferences: preferences)
        let (listening, recorder) = (listening, recorder)
        controller.follow { change in listening.observe(change) }
        controller.follow { change in recorder.observe(change) }
        controller.follow { change in listeningRules.observe(change) }
        // Each setting reaches only what it changes.
        preferences.follow([.refreshInterval]) { _ in scheduler.poke() }
        preferences.follow(Playback.followedSettings) { change in Task { await playback.applyPreferences(change) } }
        // A new keep-downloads applies now; ignoring is for what arrives.
        preferences.follow([.keepDownloads, .deletePlayedAfter]) { _ in Task { await rules.tendDownloads() } }
        preferences.follow([.loudness, .loudnessTarget]) { _ in loudness?.poke() }  // turned on: the downloads are measured
        // What `Next` and `Previous` can reach follows every change of the queue, the marks and the episodes.
        library.changes.follow { changes in
            if changes.touchesListening { await playback.refreshNeighbours() }
            if changes.podcasts || !changes.episodes.isEmpty { searchIndex.poke() }  // what a refresh brought is indexed after it
            if !changes.downloads.isEmpty {
                loudness?.poke()  // a finished download is measured
                if let ids = changes.downloads.ids { Task { await Self.fetchTranscripts(of: ids, library: library) } }
            }
        }
    }

    /// A finished download's transcript is fetched with it (once: then kept),
    /// so that it follows playback offline too.
    private static func fetchTranscripts(of episodes: Set<Int64>, library: Library) async {
        for id in episodes.prefix(50) {
            let wanted = try? await LibraryWork.run { () throws(LibraryError) -> Bool in
                guard try library.cachedMedia(id)?.complete == true else { return false }
                return try library.episode(id).episode.transcriptURL != nil
            }
            if wanted == true { _ = try? await TranscriptLoader(library: library).cues(of: id) }
        }
    }

    /// The speed and volume kept from the last run; defaults if there are none.
    private static func savedSettings(_ library: Library, logger: Logger) -> PlaybackSettings {
        do { return try library.playbackSettings() } catch {
            logger.error("could not read settings: \(error)")
            return PlaybackSettings()
        }
    }

    /// Runs the session until `finish()`: starts it (`start()`), follows
    /// the player and the cache, and refreshes on schedule.
    package func run() async {
        do throws(SettingsError) { try configWatcher?.start() } catch {
            logger.warning("\(error.message); config.toml changes will apply when podsd restarts")
        }
        await withDiscardingTaskGroup { group in
            group.addTask { await start() }
            group.addTask { await playback.run() }
            group.addTask { await listening.run() }
            group.addTask { await recorder.run(library: library, logger: logger) }
            group.addTask { await downloads.followCache(reloading: playback) }
            group.addTask { await scheduler.run() }
            if let announcer { group.addTask { await announcer.run() } }
            if let mediaCache { group.addTask { await mediaCache.run() } }
        }
    }

    /// What podsd does as it starts: the cache swept, the last episode
    /// loaded paused, the settings applied, a sync (when set up).
    private func start() async {
        await mediaCache?.sweep()
        await playback.resume()
        await playback.applyPreferences()  // config.toml's cache budget, kept for the cache
        await rules.run()
        loudness?.poke()
        searchIndex.poke()  // what migration v18 kept of a library that had no index
        sync.schedule(after: .zero)
        await LibraryWork.settle(library)
        startup.open()
    }

    /// Returns once the session has started (the last episode loaded, the settings applied).
    package func started() async { await startup.wait() }

    /// Stops, after the player's last progress is reported (the
    /// controller finishes first): the loaded episode's cache is let go and
    /// downloads saved, then the session's runs end.
    package func finish() async {
        configWatcher?.stop()
        listening.finish()
        await playback.stop()
        playback.finish()
        await scheduler.finish()
        await sync.finish()
        recorder.finish()
        announcer?.finish()
    }
}
