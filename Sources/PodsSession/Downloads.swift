import Foundation
import Logging
import PodsCache
import PodsFeedParser
import PodsHTTP
import PodsLibrary
import PodsSettings

/// One line of `pods downloads`.
package struct DownloadInfo: Sendable {
    package var episodeId: Int64
    package var podcastId: Int64
    package var title: String
    package var podcastTitle: String
    /// `downloaded`, `downloading`, `queued` (waiting for a free download
    /// slot), `metered` (waiting for a network that is not metered),
    /// `partial` (streamed in part) or `failed`.
    package var state: String
    /// Bytes on disk, and the whole file's size.
    package var bytes: Int64
    package var size: Int64
    /// Downloaded on purpose: kept until deleted.
    package var pinned: Bool
    /// Downloaded because the listener asked (not by auto-download): the podcast's retention rules never delete it.
    package var byHand: Bool = false
    package var path: String
    package var error: String?
    /// The file's loudness, once measured.
    package var loudness: EpisodeLoudness?
}

/// How much the cache holds, and its budget.
package struct StorageInfo: Sendable {
    package var bytes: Int64
    package var downloadedBytes: Int64
    package var budget: Int64
    package var episodes: Int
}

/// The downloads use case: downloading and deleting episodes, the
/// cache's storage and budget, the podcasts' auto-downloads, and the
/// cache's news (announced as library changes; a changed or unstorable
/// file reloads the playing episode).
package struct Downloads: Sendable {
    let library: Library
    /// Range caches and downloads; nil: podsd runs without a cache directory.
    let mediaCache: MediaCache?
    let preferences: PreferenceStore
    let logger: Logger

    package init(library: Library, mediaCache: MediaCache?, preferences: PreferenceStore, logger: Logger) {
        self.library = library
        self.mediaCache = mediaCache
        self.preferences = preferences
        self.logger = logger
    }

    // MARK: - Downloads

    /// Starts downloading an episode (only its missing bytes); returns at once.
    /// `byHand`: the listener asked for it, so retention never deletes it
    /// (asked again for one auto-downloaded, it pins that one).
    package func download(episodeID: Int64, byHand: Bool) async throws(SessionError) {
        let mediaCache = try requireCache()
        let episode = try SessionError.mapped { () throws(LibraryError) in try library.episode(episodeID) }
        guard let url = preferences.audioURL(of: episode), HTTPClient.isHTTP(url) else {
            throw SessionError.failed("episode \(episodeID) has no http(s) audio to download")
        }
        do throws(CacheError) {
            try await mediaCache.download(episodeID: episodeID, url: url)
        } catch {
            throw SessionError.failed("could not download episode \(episodeID): \(error.message)")
        }
        if byHand { try SessionError.mapped { () throws(LibraryError) in try library.setDownloadPinned(episodeID, true) } }
        recordDownload(episodeID, kept: true)
    }

    /// Every cached episode: downloads, downloads under way, and the partial
    /// files streaming left.
    package func downloads() async throws(SessionError) -> [DownloadInfo] {
        let queued = await mediaCache?.queuedDownloadIDs() ?? []
        // Queued on a metered network: waiting for one that is not, not for a free slot.
        let waiting = await mediaCache?.isMetered == true ? "metered" : "queued"
        let loudness = (try? library.measuredLoudness()) ?? [:]
        let cached = try await cacheEntries().compactMap { entry -> DownloadInfo? in
            guard let episode = try? library.episode(entry.media.episodeId) else { return nil }
            return DownloadInfo(
                episodeId: episode.id, podcastId: episode.podcastId, title: episode.episode.title,
                podcastTitle: episode.podcastTitle, state: queued.contains(episode.id) ? waiting : entry.state,
                bytes: entry.media.cachedBytes, size: entry.media.length, pinned: entry.media.pinned,
                byHand: (try? library.isDownloadPinned(episode.id)) ?? false, path: entry.path, error: entry.error,
                loudness: loudness[episode.id])
        }
        let listed = Set(cached.map(\.episodeId))
        let unstarted = queued.filter { !listed.contains($0) }.compactMap { id -> DownloadInfo? in
            guard let episode = try? library.episode(id) else { return nil }
            return DownloadInfo(
                episodeId: episode.id, podcastId: episode.podcastId, title: episode.episode.title,
                podcastTitle: episode.podcastTitle, state: waiting, bytes: 0, size: 0, pinned: true,
                byHand: (try? library.isDownloadPinned(episode.id)) ?? false, path: "", error: nil)
        }
        return cached + unstarted
    }

    package func deleteDownload(episodeID: Int64) async throws(SessionError) {
        let mediaCache = try requireCache()
        _ = try SessionError.mapped { () throws(LibraryError) in try library.episode(episodeID) }
        do throws(CacheError) { try await mediaCache.delete(episodeID: episodeID) } catch {
            throw SessionError.failed(error.message)
        }
        try SessionError.mapped { () throws(LibraryError) in try library.setDownloadPinned(episodeID, false) }
        recordDownload(episodeID, kept: false)
    }

    /// Downloads the newest episodes of every podcast that asks for them.
    /// (The reads run on the library's lane, as the interface's do: after a
    /// refresh they would otherwise hold a thread of the task pool.)
    package func autoDownload() async {
        guard mediaCache != nil else { return }
        let library = library
        let wanted = (try? await LibraryWork.lane.run { () throws(LibraryError) -> [Int64] in
            var ids: [Int64] = []
            for target in try library.autoDownloadTargets() {
                ids += try library.episodes(podcastId: target.podcastId, unplayedOnly: true, limit: target.count).map(\.id)
            }
            return ids
        }) ?? []
        for episodeID in wanted {
            do throws(SessionError) { try await download(episodeID: episodeID, byHand: false) } catch {
                logger.error("auto-download of episode \(episodeID): \(error.message)")
            }
        }
    }

    /// Follows the media cache until it finishes: download changes go to
    /// the library's followers; `playback` reloads the episode whose file
    /// changed on the server (at the same position), or streams it plainly
    /// when the disk is full.
    package func followCache(reloading playback: Playback) async {
        guard let mediaCache else { return }
        for await update in mediaCache.updates {
            switch update {
            case .downloadsChanged(let id):
                announce(id)
            case .changed(let id):
                logger.info("episode \(id) changed on the server; its cache starts over")
                await playback.reload(id, streaming: false)
            case .failed(let id, let error) where error.code == .diskFull:
                logger.error("episode \(id): \(error); streaming it without the cache")
                await playback.reload(id, streaming: true)
                announce(id)
            case .failed(let id, let error):
                logger.error("episode \(id): \(error)")
                announce(id)
            }
        }
    }

    private func announce(_ episodeID: Int64) { library.changes.post(LibraryChanges(downloads: .init([episodeID]))) }

    /// A download asked for, or deleted, goes to the server as gpodder.net's
    /// `download`/`delete` (Nextcloud keeps neither).
    private func recordDownload(_ episodeID: Int64, kept: Bool) {
        do { try library.recordDownload(episodeID, kept: kept) } catch {
            logger.error("could not record the download of episode \(episodeID) for the sync: \(error)")
        }
    }

    // MARK: - Storage

    package func storage() async throws(SessionError) -> StorageInfo {
        let entries = try await cacheEntries()
        let budget = try SessionError.mapped { () throws(LibraryError) in try library.cacheBudget() } ?? MediaCache.defaultBudget
        return StorageInfo(
            bytes: entries.reduce(0) { $0 + $1.media.cachedBytes },
            downloadedBytes: entries.filter(\.media.complete).reduce(0) { $0 + $1.media.cachedBytes },
            budget: budget, episodes: entries.count)
    }

    package func setCacheBudget(_ bytes: Int64) async throws(SessionError) {
        let mediaCache = try requireCache()
        guard bytes >= 0 else { throw SessionError.invalidArgument("The budget must be 0 or more bytes") }
        // The config file holds it (cache-budget); the library keeps the copy the cache reads.
        do throws(SettingsError) { try preferences.set(.cacheBudget, .number(Double(bytes)), podcast: nil) } catch {
            logger.warning("cache-budget is not kept in config.toml: \(error.message)")
        }
        try SessionError.mapped { () throws(LibraryError) in try library.setCacheBudget(bytes) }
        await mediaCache.enforceBudget()
    }

    private func cacheEntries() async throws(SessionError) -> [CacheEntry] {
        let mediaCache = try requireCache()
        do throws(CacheError) { return try await mediaCache.entries() } catch {
            throw SessionError.failed(error.message)
        }
    }

    private func requireCache() throws(SessionError) -> MediaCache {
        guard let mediaCache else {
            throw SessionError.failed("podsd runs without a cache directory")
        }
        return mediaCache
    }
}
