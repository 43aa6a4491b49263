import Foundation
import Logging
import PodsCache
import PodsFeedParser
import PodsFeeds
import PodsHTTP
import PodsLibrary

/// The subscriptions use case: subscribing (a feed, an Apple link, a
/// private feed), unsubscribing, OPML imports with their URL and
/// credential policy, the auto-download setting, and the one refresh with
/// its follow-up that `pods refresh` and the background schedule share.
/// It announces nothing by hand: the library does (`LibraryChangeFeed`).
package struct Subscriptions: Sendable {
    let library: Library
    let refresher: FeedRefresher
    let subscriber: FeedSubscriber
    let directories: DirectoryService
    let downloads: Downloads
    let artwork: ArtworkCache?
    /// Tells the desktop of new episodes after a refresh; nil: nobody is told.
    let announcer: (any NewEpisodeAnnouncer)?
    /// Synced after a refresh, when set up.
    let sync: SyncService?
    /// Judge what arrives, and tend the downloads, after each refresh.
    let rules: PodcastRules
    let logger: Logger

    package init(library: Library, refresher: FeedRefresher, subscriber: FeedSubscriber, directories: DirectoryService,
                 downloads: Downloads, artwork: ArtworkCache?, announcer: (any NewEpisodeAnnouncer)?, sync: SyncService?,
                 rules: PodcastRules, logger: Logger) {
        self.rules = rules
        self.library = library
        self.refresher = refresher
        self.subscriber = subscriber
        self.directories = directories
        self.downloads = downloads
        self.artwork = artwork
        self.announcer = announcer
        self.sync = sync
        self.logger = logger
    }

    /// Progress of a refresh or an import: feeds done, of how many.
    package typealias Progress = @Sendable (_ done: Int, _ total: Int) -> Void

    // MARK: - Subscribing

    /// Subscribes to a feed, an Apple link, a page naming a feed, or a show
    /// named by its `podcast:guid` (`guid:…`, through Podcast Index); a user
    /// name and password (given, or in the URL) are kept apart from it.
    package func subscribe(_ text: String, user: String? = nil, password: String? = nil) async throws(SessionError) -> Podcast {
        var (url, credentials) = HTTPCredentials.splitting(text)
        if let user { credentials = HTTPCredentials(user: user, password: password ?? "") }
        if let feed = try await directories.feedURL(ofAppleLink: url) { url = feed }
        if let feed = try await directories.feedURL(ofGuid: url) { url = feed }
        let podcast = try await subscriber.subscribe(url, credentials: credentials)
        await rules.judgeArrivals()  // the player's own rules apply to a new podcast's episodes too
        await library.changes.delivered()
        Task { await prefetchArtwork() }
        return podcast
    }

    /// The podcast `text` names: its id, or a title (or its start).
    package func podcastID(_ text: String) async throws(SessionError) -> Int64 {
        let library = library
        return try await LibraryWork.run { () throws(LibraryError) in try library.podcast(matching: text).id }
    }

    package func unsubscribe(_ text: String) async throws(SessionError) {
        let id = try await podcastID(text)
        let library = library
        _ = try await LibraryWork.run { () throws(LibraryError) in try library.unsubscribe(id) }
        await library.changes.delivered()
    }

    /// Keeps the newest `count` unplayed episodes of the podcast downloaded (0: none), starting now.
    package func setAutoDownload(_ text: String, count: Int) async throws(SessionError) {
        let id = try await podcastID(text)
        let library = library
        try await LibraryWork.run { () throws(LibraryError) in try library.setAutoDownload(id, count: count) }
        await library.changes.delivered()
        await downloads.autoDownload()
        await rules.tendDownloads()
    }

    // MARK: - Importing

    /// One outline's subscription, as an import reports it.
    package struct ImportResult: Sendable {
        package var url: String
        package var podcastId: Int64?
        package var error: String?
    }

    /// Subscriptions made at once by an import: each is a fetch and a parse.
    static let importWidth = 8

    /// Subscribes to each outline of an OPML document, `importWidth` at a
    /// time (the work is linear in the outlines and holds at most that many
    /// fetches), telling `progress` as each is done; results in outline
    /// order. Once the caller has gone (its call cancelled), no further one
    /// starts. An OPML file came from another program: it names web feeds
    /// only, and a password in an outline's URL goes to the store, never
    /// into the library or the results.
    package func importOPML(_ document: String, progress: Progress? = nil) async throws(SessionError) -> [ImportResult] {
        let outlines: [OPML.Outline]
        do throws(FeedError) { outlines = try OPML.parse(Data(document.utf8)) } catch {
            throw SessionError.invalidArgument(error.message)
        }
        progress?(0, outlines.count)
        let subscriber = subscriber
        let results = await withTaskGroup(of: (Int, ImportResult).self) { group in
            var results: [ImportResult?] = Array(repeating: nil, count: outlines.count)
            var done = 0
            for (index, outline) in outlines.enumerated() {
                if index >= Self.importWidth, let (finished, result) = await group.next() {
                    results[finished] = result
                    done += 1
                    progress?(done, outlines.count)
                }
                guard !Task.isCancelled else { break }
                group.addTask {
                    let (url, credentials) = HTTPCredentials.splitting(outline.feedURL)
                    guard HTTPClient.isHTTP(FeedRefresher.normalized(url)) else {
                        return (index, ImportResult(url: url, podcastId: nil, error: "an OPML file may name only http(s) feeds"))
                    }
                    do throws(SessionError) {
                        let podcast = try await subscriber.subscribe(url, credentials: credentials)
                        return (index, ImportResult(url: url, podcastId: podcast.id, error: nil))
                    } catch {
                        return (index, ImportResult(url: url, podcastId: nil, error: error.message))
                    }
                }
            }
            for await (index, result) in group {
                results[index] = result
                done += 1
                progress?(done, outlines.count)
            }
            return results.compactMap { $0 }
        }
        await rules.judgeArrivals()
        await library.changes.delivered()
        Task {
            await LibraryWork.settle(library)
            await prefetchArtwork()
        }
        return results
    }

    // MARK: - Refreshing

    /// Refreshes `ids` (nil: every podcast) and returns each one's summary
    /// once the library's followers have heard of the changes. What follows
    /// a refresh (`followUp`) runs after it; `waitForFollowUp` waits for
    /// it too (the background schedule does, so rounds never overlap).
    package func refresh(_ ids: [Int64]?, progress: Progress? = nil,
                         waitForFollowUp: Bool = false) async throws(SessionError) -> [RefreshSummary] {
        let summaries: [RefreshSummary]
        do throws(LibraryError) { summaries = try await refresher.refresh(ids, progress: progress ?? { _, _ in }) } catch {
            throw SessionError(error)
        }
        await library.changes.delivered()
        guard !Task.isCancelled else { return summaries }  // shutting down
        if waitForFollowUp { await followUp(summaries) } else { Task { await followUp(summaries) } }
        return summaries
    }

    /// What follows a refresh: the library settles first (its log folded,
    /// caches and freed memory given back), then the rules judge what
    /// arrived, the auto-downloads, the rules tend the downloads, then the
    /// artwork, the notifications of new episodes (not of ignored ones) and a sync.
    private func followUp(_ summaries: [RefreshSummary]) async {
        await LibraryWork.settle(library)
        let ignored = await rules.judgeArrivals()
        await downloads.autoDownload()
        await rules.tendDownloads()
        await prefetchArtwork()
        await announcer?.announce(summaries.map { summary in
            var kept = summary
            kept.added = max(0, summary.added - summary.ignored - (ignored[summary.podcastId] ?? 0))
            return kept
        })
        sync?.schedule(after: .zero)
    }

    /// Fetches the artwork of every podcast that has none cached yet;
    /// the library's followers hear of it (playlist icons).
    private func prefetchArtwork() async {
        guard let artwork else { return }
        let library = library
        let urls = (try? await LibraryWork.lane.run { () throws(LibraryError) in try library.podcastArtworkURLs() }) ?? []
        // Only web images need fetching: a local podcast's file is its own copy.
        for url in urls { _ = await artwork.localURI(for: url, policy: URLPolicy(documentURL: nil)) }
        library.changes.post(LibraryChanges(artwork: true))
    }
}
