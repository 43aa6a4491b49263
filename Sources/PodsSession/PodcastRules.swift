import Foundation
import Logging
import PodsCache
import PodsLibrary
import PodsSettings

/// The podcasts' rules that tend the library with no screen open, run
/// after every refresh, at start, and when a setting changes:
///
/// - `ignore-episodes`, `min-duration`, `episode-types`: an episode that
///   arrives and matches is ignored (marked played here, never
///   auto-downloaded, left out of `--unplayed`; the sync never hears of it).
/// - `keep-downloads N` and `delete-played-after`: downloads beyond a
///   podcast's newest N, and played ones older than that, are deleted;
///   never the loaded episode's, a queued one's or one downloaded by hand.
///
/// (`skip-chapters` is the player's: `PlayerController`.)
package struct PodcastRules: Sendable {
    let library: Library
    let preferences: PreferenceStore
    let downloads: Downloads
    let mediaCache: MediaCache?
    /// The episode loaded in the player, which retention never touches.
    let loadedEpisode: @Sendable () async -> Int64?
    let now: @Sendable () -> Date
    let logger: Logger

    package init(library: Library, preferences: PreferenceStore, downloads: Downloads, mediaCache: MediaCache?,
                 loadedEpisode: @escaping @Sendable () async -> Int64?, now: @escaping @Sendable () -> Date = Date.init,
                 logger: Logger) {
        self.library = library
        self.preferences = preferences
        self.downloads = downloads
        self.mediaCache = mediaCache
        self.loadedEpisode = loadedEpisode
        self.now = now
        self.logger = logger
    }

    /// Every rule: the episodes that arrived are judged, then the downloads tended.
    /// Returns how many episodes were ignored, by podcast.
    @discardableResult
    package func run() async -> [Int64: Int] {
        let ignored = await judgeArrivals()
        await tendDownloads()
        return ignored
    }

    // MARK: - Ignoring what arrives

    /// The keys that decide what a podcast ignores.
    private static let ignoreKeys: [SettingKey] = [.ignoreEpisodes, .minDuration, .episodeTypes]

    /// Each podcast's rule, for the refresher to judge new items by as it
    /// stores them: an ignored episode is never announced as new.
    package static func arrivalRule(_ preferences: PreferenceStore) -> ArrivalRule {
        { podcastId in
            // A new subscription (nil) has no settings of its own yet: the player's hold.
            let rule = IgnoreRule(preferences.values(ignoreKeys, podcast: podcastId), podcast: podcastId ?? -1)
            return rule.ignoresAny ? rule.ignores : nil
        }
    }

    /// Judges the episodes that arrived since the last run and were not
    /// judged as they were stored (a rule set since, an older Pods' rows);
    /// returns how many were ignored, by podcast.
    @discardableResult
    package func judgeArrivals() async -> [Int64: Int] {
        let values = preferences.everyPodcast(Self.ignoreKeys)
        let library = library
        // No podcast ignores anything (the usual library): the mark moves on, no episode is read.
        let anyRule = !values.own.isEmpty || IgnoreRule(values, podcast: -1).ignoresAny
        do {
            let ignored = try await LibraryWork.lane.run { () throws(LibraryError) in
                var rules: [Int64: IgnoreRule] = [:]  // each podcast's read, and its pattern compiled, once
                return try library.judgeArrivedEpisodes(anyRule ? { episode in
                    let rule = rules[episode.podcastId] ?? IgnoreRule(values, podcast: episode.podcastId)
                    rules[episode.podcastId] = rule
                    return rule.ignores(episode)
                } : nil).reduce(into: [Int64: Int]()) { counts, ignored in counts[ignored.podcastId, default: 0] += 1 }
            }
            let total = ignored.values.reduce(0, +)
            if total > 0 { logger.info("the podcasts' rules ignored \(total) new episode\(total == 1 ? "" : "s")") }
            return ignored
        } catch {
            logger.error("could not judge the new episodes: \(error)")
            return [:]
        }
    }

    /// A podcast's `ignore-episodes`, `min-duration` and `episode-types`.
    private struct IgnoreRule {
        var matches: ((String) -> Bool)?
        var minDuration: Double
        var types: Set<Substring>
        static let kinds: Set<Substring> = ["full", "trailer", "bonus"]

        init(_ values: PodcastValues, podcast: Int64) {
            matches = TitlePattern.optional(values.value(.ignoreEpisodes, podcast: podcast).textValue)?.matcher()
            minDuration = values.value(.minDuration, podcast: podcast).numberValue ?? 0
            types = Set((values.value(.episodeTypes, podcast: podcast).textValue ?? "full,trailer,bonus").split(separator: ","))
        }

        /// Whether any episode could be ignored.
        var ignoresAny: Bool { matches != nil || minDuration > 0 || !Self.kinds.isSubset(of: types) }

        /// Its title matches, it is too short (a length the feed gave), or of a kind not kept (no kind given is `full`).
        func ignores(_ episode: ArrivedEpisode) -> Bool {
            if let matches, matches(episode.title) { return true }
            if minDuration > 0, let duration = episode.duration, duration < minDuration { return true }
            let kind = Substring(episode.episodeType?.lowercased() ?? "full")
            return Self.kinds.contains(kind) && !types.contains(kind)
        }
    }

    // MARK: - Retention

    /// Deletes the downloads `keep-downloads` and `delete-played-after` let go.
    package func tendDownloads() async {
        guard let mediaCache else { return }
        let values = preferences.everyPodcast([.keepDownloads, .deletePlayedAfter])
        let waiting = await mediaCache.queuedDownloadIDs()
        let library = library
        guard let downloaded = try? await LibraryWork.lane.run({ () throws(LibraryError) in
            try library.downloadedEpisodes(alsoWaiting: Array(waiting))
        }) else { return }
        let loaded = await loadedEpisode()
        let now = now()
        var victims: [Int64] = []
        for (podcast, episodes) in Dictionary(grouping: downloaded, by: \.podcastId) {
            let keep = Int(values.value(.keepDownloads, podcast: podcast).numberValue ?? 0)
            let after = values.value(.deletePlayedAfter, podcast: podcast).numberValue ?? 0
            let newestFirst = episodes.sorted { ($0.published ?? .distantPast, $0.id) > ($1.published ?? .distantPast, $1.id) }
            for (index, episode) in newestFirst.enumerated() {
                // An unplayed episode that left its feed lives on only through its download: retention
                // deletes files, never episodes (REVIEW-4, N21: the next refresh removed it).
                guard !episode.byHand, !episode.queued, episode.id != loaded, episode.inFeed || episode.completed else { continue }
                let beyondKeep = keep > 0 && index >= keep
                let playedLongAgo = after > 0 && episode.completed && episode.playedAt.map { now.timeIntervalSince($0) >= after } == true
                if beyondKeep || playedLongAgo { victims.append(episode.id) }
            }
        }
        for id in victims {
            do throws(SessionError) {
                try await downloads.deleteDownload(episodeID: id)
                logger.info("episode \(id): its download went, as its podcast's keep-downloads or delete-played-after asks")
            } catch {
                logger.info("episode \(id): its download stays for now: \(error.message)")
            }
        }
    }
}
