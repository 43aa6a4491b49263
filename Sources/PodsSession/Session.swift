import Foundation
import Logging
import PodsCache
import PodsFeeds
import PodsHTTP
import PodsLibrary
import PodsPlayer

/// The listening session of a podsd that keeps a library, assembled once:
/// each use case made with what it uses and nothing reaching through
/// another. podsd and the in-process tests build it the same way.
///
/// The library announces its own changes (`Library.changes`); the session
/// follows them where its rules need it (`Next`/`Previous`, the refresh
/// schedule), and interfaces follow them for their signals.
package struct Session: Sendable {
    package let library: Library
    package let controller: PlayerController
    package let preferences: PreferenceStore
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
    /// Tells the desktop of new episodes; nil: nobody is told.
    package let announcer: (any NewEpisodeAnnouncer)?

    /// `cacheDirectory` nil: no cache, no downloads, no artwork.
    /// `announcer` is made with the session's playback (its "Play" action plays) and artwork.
    package init(library: Library, controller: PlayerController, preferences: PreferenceStore, credentials: CredentialStore?,
                 cacheDirectory: URL?, logger: Logger,
                 announcer makeAnnouncer: (Playback, ArtworkCache?) -> (any NewEpisodeAnnouncer)? = { _, _ in nil }) {
        self.library = library
        self.controller = controller
        self.preferences = preferences
        var feeds = FeedRefresher.spillingClient()
        feeds.options.credentials = credentials?.provider
        let refresher = FeedRefresher(library: library, http: feeds)
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
        scheduler = RefreshScheduler(subscriptions: subscriptions, library: library, preferences: preferences, logger: logger)
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

    /// Runs the session until `stop()`: follows the player and the cache,
    /// and refreshes on schedule.
    package func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await playback.run() }
            group.addTask { await listening.run() }
            group.addTask { await downloads.followCache(reloading: playback) }
            group.addTask { await scheduler.run() }
            if let announcer { group.addTask { await announcer.run() } }
            if let mediaCache { group.addTask { await mediaCache.run() } }
        }
    }

    /// What podsd does as it starts, beside `run()`: the cache swept, the
    /// last episode loaded paused, the settings applied, a sync (when set up).
    package func start() async {
        await mediaCache?.sweep()
        await playback.resume()
        await playback.applyPreferences()  // config.toml's cache budget, kept for the cache
        await rules.run()
        loudness?.poke()
        searchIndex.poke()  // what migration v18 kept of a library that had no index
        sync.schedule(after: .zero)
        await LibraryWork.settle(library)
    }

    /// Stops, after the player's last progress is reported: the loaded
    /// episode's cache is let go and downloads saved, then the session's
    /// runs end.
    package func stop() async {
        listening.finish()
        await playback.stop()
        playback.finish()
        await scheduler.finish()
        await sync.finish()
        announcer?.finish()
    }
}
