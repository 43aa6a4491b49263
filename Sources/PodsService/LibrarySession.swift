import Foundation
import Logging
import PodsCache
import PodsDBus
import PodsFeeds
import PodsHTTP
import PodsInterfaces
import PodsLibrary
import PodsPlayer
import PodsSession

/// The parts of a podsd that keeps a library, each made once and given
/// what it uses: nothing reaches through another for its dependencies.
struct LibrarySession: Sendable {
    let library: Library
    let refresher: FeedRefresher
    /// Range caches and downloads; nil streams every episode plainly.
    let mediaCache: MediaCache?
    let artwork: ArtworkCache?
    /// Artwork rendered for terminals (`pods ui`).
    let pictures: ArtworkPictures?
    let player: LibraryPlayer
    let notifier: EpisodeNotifier
    let sync: SyncService
    let scheduler: RefreshScheduler

    init(library: Library, controller: PlayerController, preferences: PreferenceStore, signals: LibrarySignals,
         credentials: CredentialStore?, cacheDirectory: URL?, podsConnection: DBusConnection, logger: Logger) {
        self.library = library
        var feeds = FeedRefresher.spillingClient()
        feeds.options.credentials = credentials?.provider
        refresher = FeedRefresher(library: library, http: feeds)
        var media = HTTPClient()
        media.options.credentials = credentials?.provider
        mediaCache = cacheDirectory.map { MediaCache(directory: $0, library: library, http: media, logger: logger) }
        artwork = cacheDirectory.map { ArtworkCache(directory: $0, library: library) }
        pictures = artwork.map { ArtworkPictures(library: library, cache: $0) }
        player = LibraryPlayer(library: library, refresher: refresher, controller: controller, signals: signals, logger: logger,
                               preferences: preferences, mediaCache: mediaCache, artwork: artwork, credentials: credentials)
        notifier = EpisodeNotifier(connection: podsConnection, player: player, library: library, preferences: preferences,
                                   artwork: artwork, logger: logger)
        sync = SyncService(player: player, library: library, preferences: preferences, credentials: credentials, logger: logger)
        scheduler = RefreshScheduler(player: player, library: library, preferences: preferences, refresher: refresher,
                                     signals: signals, logger: logger, notifier: notifier, sync: sync)
    }
}
