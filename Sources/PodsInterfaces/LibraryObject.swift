import Foundation
import Logging
import PodsConcurrency
import PodsDBus
import PodsFeedParser
import PodsFeeds
import PodsHTTP
import PodsLibrary
import PodsProtocol
import PodsSession
import PodsSettings

/// `/org/pods/Library`: the `org.pods.Library2` interface, everything the
/// CLI does with the library. Items are typed `a{sv}` values (their keys in
/// `LibraryItems`); every list is paged and bounded (`LibraryPaging`), so no
/// reply grows with the library. Changes are announced with signals that
/// carry ids.
package enum LibraryObject {
    /// `listingPeer` is the unique name of the connection long listings are served on.
    package static func make(_ player: LibraryPlayer, library: Library, preferences: PreferenceStore, refresher: FeedRefresher,
                             signals: LibrarySignals, notifier: (any NewEpisodeAnnouncer)?, sync: SyncService,
                             pictures: ArtworkPictures?, listingPeer: String, logger: Logger) -> DBusExportedObject {
        let episodePages = PageReadAhead<EpisodePageKey, DBusWireBody>()
        let directories = DirectoryService(preferences: preferences)
        @Sendable func podcastItem(_ podcast: Podcast) -> DBusValue {
            let schedule = RefreshSchedule(interval: preferences.value(.refreshInterval, podcast: nil).numberValue ?? 0)
            return LibraryItemEncoding.podcast(podcast, nextRefresh: schedule.next(for: podcast))
        }
        /// Subscribes to a feed, an Apple link or a page naming a feed; a user
        /// name and password (given, or in the URL) are kept apart from it.
        @Sendable func subscribing(_ text: String, user: String?, password: String?) async throws(DBusError) -> [DBusValue] {
            var (url, credentials) = HTTPCredentials.splitting(text)
            if let user { credentials = HTTPCredentials(user: user, password: password ?? "") }
            if let feed = try await onBus({ () throws(SessionError) in try await directories.feedURL(ofAppleLink: url) }) { url = feed }
            let podcast = try await onBus { () throws(SessionError) in try await player.subscribe(url, credentials: credentials) }
            signals.podcastsChanged()
            signals.episodesChanged(podcast.id)
            Task {
                await player.prefetchArtwork()
                signals.artworkChanged()
            }
            return [podcastItem(podcast)]
        }
        @Sendable func podcastID(_ text: String) async throws(DBusError) -> Int64 {
            try await LibraryCall.run { () throws(LibraryError) in try library.podcast(matching: text).id }
        }
        return DBusExportedObject(path: LibraryNames.objectPath, interfaces: [DBusInterface(
            name: LibraryNames.interface,
            methods: [
                // MARK: Podcasts
                method(.subscribe) { arguments throws(DBusError) in
                    try await subscribing(arguments[0].stringValue ?? "", user: nil, password: nil)
                },
                method(.subscribeWithCredentials) { arguments throws(DBusError) in
                    try await subscribing(arguments[0].stringValue ?? "", user: arguments[1].stringValue, password: arguments[2].stringValue)
                },
                method(.unsubscribe) { arguments throws(DBusError) in
                    let id = try await podcastID(arguments[0].stringValue ?? "")
                    try await LibraryCall.run { () throws(LibraryError) in try library.unsubscribe(id) }
                    signals.podcastsChanged()
                    signals.queueChanged()
                    await player.refreshNeighbours()
                    return []
                },
                method(.podcast) { arguments throws(DBusError) in
                    let text = arguments[0].stringValue ?? ""
                    let podcast = try await LibraryCall.run { () throws(LibraryError) in try library.podcast(matching: text) }
                    return [podcastItem(podcast)]
                },
                method(.listPodcasts) { arguments throws(DBusError) in
                    try await offsetPaged(arguments, of: .listPodcasts, item: podcastItem) { offset, limit throws(DBusError) in
                        try await LibraryCall.run { () throws(LibraryError) in try library.podcasts(offset: offset, limit: limit) }
                    }
                },
                method(.refresh) { arguments throws(DBusError) in
                    let text = arguments[0].stringValue ?? ""
                    let ids = text.isEmpty ? nil : [try await podcastID(text)]
                    let summaries: [RefreshSummary]
                    do throws(LibraryError) {
                        summaries = try await refresher.refresh(ids) { done, total in signals.refreshProgress(done, total) }
                    } catch { throw DBusError(SessionError(error)) }
                    for summary in summaries where summary.changed {
                        signals.episodesChanged(summary.podcastId)
                    }
                    signals.podcastsChanged()
                    Task { await player.followRefresh(summaries, signals: signals, notifier: notifier, sync: sync) }
                    // Failures and changes first: if a huge library's results pass the
                    // reply's bound, only "not modified" lines are left out.
                    let ranked = summaries.filter { $0.error != nil } + summaries.filter { $0.error == nil && $0.changed }
                        + summaries.filter { $0.error == nil && !$0.changed }
                    return [boundedList(ranked, item: LibraryItemEncoding.refreshResult)]
                },
                method(.importOPML) { arguments throws(DBusError) in
                    let outlines: [OPML.Outline]
                    do throws(FeedError) { outlines = try OPML.parse(Data((arguments[0].stringValue ?? "").utf8)) } catch {
                        throw DBusError.invalidArgs(error.message)
                    }
                    let results = await importing(outlines, with: player, signals: signals)
                    signals.podcastsChanged()
                    Task {
                        await LibraryWork.settle(library)
                        await player.prefetchArtwork()
                    }
                    return [boundedList(results) { LibraryItemEncoding.importResult(url: $0.url, podcastId: $0.podcastId, error: $0.error) }]
                },
                method(.search) { arguments throws(DBusError) in
                    let limit = LibraryPaging.itemCount(for: UInt32(clamping: arguments[1].int64Value ?? 0))
                    let results = try await onBus { () throws(SessionError) in
                        try await directories.search(arguments[0].stringValue ?? "", limit: min(limit, 200))
                    }
                    return [boundedList(results, item: LibraryItemEncoding.directoryResult)]
                },
                method(.setAutoDownload) { arguments throws(DBusError) in
                    let id = try await podcastID(arguments[0].stringValue ?? "")
                    let count = Int(arguments[1].int64Value ?? 0)
                    try await LibraryCall.run { () throws(LibraryError) in try library.setAutoDownload(id, count: count) }
                    signals.podcastsChanged()
                    await player.autoDownload()
                    return []
                },

                // MARK: Episodes
                LibraryMethod.listEpisodes.exported(body: { arguments throws(DBusError) in
                    let filter = try await episodeFilter(arguments[0], podcastID: podcastID)
                    let given = arguments[1].stringValue ?? ""
                    guard let (text, skipping) = LibraryPaging.splitAhead(given) else {
                        throw DBusError.invalidArgs("'\(given.prefix(80))' is not a cursor of ListEpisodes")
                    }
                    let cursor = text == LibraryPaging.start ? nil : EpisodeCursor(text)
                    guard text == LibraryPaging.start || cursor != nil else {
                        throw DBusError.invalidArgs("'\(given.prefix(80))' is not a cursor of ListEpisodes")
                    }
                    let count = LibraryPaging.itemCount(for: UInt32(clamping: arguments[2].int64Value ?? 0))
                    let key = EpisodePageKey(filter: filter, cursor: cursor, count: count)
                    let page = try await episodePages.page(key, skipping: skipping) { key throws(DBusError) in
                        let page = try await EpisodeListing.page(library, key.filter, after: key.cursor, count: key.count)
                        return .init(reply: page.body, next: page.next.map { EpisodePageKey(filter: key.filter, cursor: $0, count: key.count) })
                    }
                    // Past the last page: an empty one.
                    return page ?? WireReplyPage.empty
                }),
                method(.streamEpisodes) { arguments throws(DBusError) in
                    let filter = try await episodeFilter(arguments[0], podcastID: podcastID)
                    guard case .unixFD(let descriptor) = arguments[1] else { throw DBusError.invalidArgs("StreamEpisodes takes a file descriptor") }
                    try EpisodeListing.stream(library, filter, into: descriptor, logger: logger)
                    return []
                },
                method(.episode) { arguments throws(DBusError) in
                    let id = arguments[0].int64Value ?? -1
                    return [LibraryItemEncoding.episode(try await LibraryCall.run { () throws(LibraryError) in try library.episode(id) })]
                },
                method(.currentEpisode) { _ throws(DBusError) in
                    let current = try await LibraryCall.run { () throws(LibraryError) in try library.currentEpisode() }
                    return [current.map(LibraryItemEncoding.episode) ?? ItemBuilder().value]
                },
                method(.playEpisode) { arguments throws(DBusError) in
                    try await onBus { () throws(SessionError) in try await player.play(episodeID: arguments[0].int64Value ?? -1) }
                    return []
                },
                method(.mark) { arguments throws(DBusError) in
                    let id = arguments[0].int64Value ?? -1
                    let played = arguments[1].boolValue ?? true
                    try await LibraryCall.run { () throws(LibraryError) in try library.markCompleted(id, played) }
                    signals.statusChanged(id)
                    await player.refreshNeighbours()
                    return []
                },

                method(.listTranscript) { arguments throws(DBusError) in
                    let cues = try await onBus { () throws(SessionError) in try await TranscriptLoader(library: library).cues(of: arguments[0].int64Value ?? -1) }
                    return try await offsetPaged(Array(arguments.dropFirst()), of: .listTranscript, item: LibraryItemEncoding.cue) {
                        offset, limit throws(DBusError) in Array(cues.dropFirst(offset).prefix(limit))
                    }
                },

                method(.artwork) { arguments throws(DBusError) in
                    guard let pictures else { throw DBusError(SessionError(.failed, "podsd keeps no artwork (it runs with --no-cache)")) }
                    let file = try await onBus { () throws(SessionError) in
                        try await pictures.picture(episode: arguments[0].int64Value ?? -1, pixels: Int(arguments[1].int64Value ?? 0))
                    }
                    let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
                    guard descriptor >= 0 else { throw DBusError(SessionError(.failed, "the rendered artwork could not be opened")) }
                    return [.unixFD(DBusFileDescriptor(adopting: descriptor))]
                },

                // MARK: The queue
                method(.listQueue) { arguments throws(DBusError) in
                    try await offsetPaged(arguments, of: .listQueue, item: LibraryItemEncoding.summary) { offset, limit throws(DBusError) in
                        try await LibraryCall.run { () throws(LibraryError) in try library.queue(offset: offset, limit: limit) }
                    }
                },
                method(.queueAdd) { arguments throws(DBusError) in
                    let ids = arguments[0].arrayValue?.compactMap(\.int64Value) ?? []
                    let index = arguments[1].int64Value.flatMap { $0 >= 0 ? Int($0) : nil }
                    try await LibraryCall.run { () throws(LibraryError) in try library.enqueue(ids, at: index) }
                    signals.queueChanged()
                    await player.refreshNeighbours()
                    return []
                },
                method(.queueRemove) { arguments throws(DBusError) in
                    let id = arguments[0].int64Value ?? -1
                    try await LibraryCall.run { () throws(LibraryError) in try library.dequeue(id) }
                    signals.queueChanged()
                    await player.refreshNeighbours()
                    return []
                },
                method(.queueMove) { arguments throws(DBusError) in
                    let id = arguments[0].int64Value ?? -1
                    let index = Int(arguments[1].int64Value ?? 0)
                    try await LibraryCall.run { () throws(LibraryError) in try library.moveInQueue(id, to: index) }
                    signals.queueChanged()
                    await player.refreshNeighbours()
                    return []
                },
                method(.queueClear) { _ throws(DBusError) in
                    try await LibraryCall.run { () throws(LibraryError) in try library.clearQueue() }
                    signals.queueChanged()
                    await player.refreshNeighbours()
                    return []
                },

                // MARK: Downloads and the cache
                method(.download) { arguments throws(DBusError) in
                    try await onBus { () throws(SessionError) in try await player.download(episodeID: arguments[0].int64Value ?? -1) }
                    return []
                },
                method(.deleteDownload) { arguments throws(DBusError) in
                    try await onBus { () throws(SessionError) in try await player.deleteDownload(episodeID: arguments[0].int64Value ?? -1) }
                    return []
                },
                method(.listDownloads) { arguments throws(DBusError) in
                    try await offsetPaged(arguments, of: .listDownloads, item: LibraryItemEncoding.download) { offset, limit throws(DBusError) in
                        Array(try await onBus { () throws(SessionError) in try await player.downloads() }.dropFirst(offset).prefix(limit))
                    }
                },
                method(.storage) { _ throws(DBusError) in
                    [LibraryItemEncoding.storage(try await onBus { () throws(SessionError) in try await player.storage() })]
                },
                method(.setCacheBudget) { arguments throws(DBusError) in
                    try await onBus { () throws(SessionError) in try await player.setCacheBudget(arguments[0].int64Value ?? -1) }
                    return []
                },
                method(.cacheStatus) { _ throws(DBusError) in
                    let status = await player.cacheStatus()
                    return [LibraryItemEncoding.cacheStatus(episodeID: status.episodeID, buffering: status.buffering, cached: status.cached)]
                },
            ] + SyncMethods.make(sync) + [
                method(.listingPeer) { _ throws(DBusError) in [.string(listingPeer)] },
            ],
            signals: LibrarySignal.all)], executor: LibraryWork.lane)
    }

    /// A handler for one of the interface's methods.
    package static func method(_ description: LibraryMethod,
                       _ body: @escaping @Sendable ([DBusValue]) async throws(DBusError) -> [DBusValue]) -> DBusMethod {
        description.exported { arguments in try await body(arguments) }
    }

    // MARK: - Arguments

    /// What one page of `ListEpisodes` asks for.
    private struct EpisodePageKey: Hashable, Sendable {
        var filter: EpisodeFilter
        var cursor: EpisodeCursor?
        var count: Int
    }

    /// A page of a list paged by position, from its `(s cursor, u limit)`;
    /// `rows(offset, limit)` reads up to `limit` rows from `offset`.
    private static func offsetPaged<Row>(
        _ arguments: [DBusValue], of method: LibraryMethod, item: (Row) -> DBusValue,
        rows: (_ offset: Int, _ limit: Int) async throws(DBusError) -> [Row]
    ) async throws(DBusError) -> [DBusValue] {
        let text = arguments[0].stringValue ?? ""
        guard let offset = ReplyPage.offset(from: text) else {
            throw DBusError.invalidArgs("'\(text.prefix(80))' is not a cursor of \(method.name)")
        }
        let count = LibraryPaging.itemCount(for: UInt32(clamping: arguments[1].int64Value ?? 0))
        var page = ReplyPage(count: count)
        for row in try await rows(offset, count + 1) where !page.add({ item(row) }) { break }
        return page.reply { lastIndex in ReplyPage.offsetCursor(offset + lastIndex + 1) }
    }

    /// `ListEpisodes`' filter: `podcast` (`x` id, or `s` id or title prefix, `""` for all) and `unplayed` (`b`).
    private static func episodeFilter(
        _ value: DBusValue, podcastID: @Sendable (String) async throws(DBusError) -> Int64
    ) async throws(DBusError) -> EpisodeFilter {
        var filter = EpisodeFilter()
        for (key, entry) in value.stringKeyedDictionary ?? [:] {
            switch (key, entry) {
            case ("podcast", .string(let text)):
                if !text.isEmpty { filter.podcastId = try await podcastID(text) }
            case ("podcast", _):
                guard let id = entry.int64Value else { throw DBusError.invalidArgs("the filter's podcast is an id (x) or a title (s)") }
                filter.podcastId = id
            case ("unplayed", .bool(let flag)):
                filter.unplayedOnly = flag
            default:
                throw DBusError.invalidArgs("ListEpisodes has no filter '\(key)' of type \(entry.type.signature) "
                                            + "(it takes podcast: x or s, unplayed: b)")
            }
        }
        return filter
    }

    /// An `aa{sv}` of as many items as fit one reply.
    private static func boundedList<T>(_ values: [T], item: (T) -> DBusValue) -> DBusValue {
        ReplyPage.bounded(values, item: item).list
    }

    // MARK: - Importing

    private struct ImportResult: Sendable {
        var url: String
        var podcastId: Int64?
        var error: String?
    }

    /// Subscriptions made at once by an import: each is a fetch and a parse.
    static let importWidth = 8

    /// Subscribes to each outline, `importWidth` at a time (the work is
    /// linear in the outlines and holds at most that many fetches), announcing
    /// progress as each is done; results in outline order. Once the caller has
    /// gone (its call cancelled), no further one starts.
    private static func importing(_ outlines: [OPML.Outline], with player: LibraryPlayer,
                                  signals: LibrarySignals) async -> [ImportResult] {
        signals.refreshProgress(0, outlines.count)
        return await withTaskGroup(of: (Int, ImportResult).self) { group in
            var results: [ImportResult?] = Array(repeating: nil, count: outlines.count)
            var done = 0
            for (index, outline) in outlines.enumerated() {
                if index >= importWidth, let (finished, result) = await group.next() {
                    results[finished] = result
                    done += 1
                    signals.refreshProgress(done, outlines.count)
                }
                guard !Task.isCancelled else { break }
                group.addTask {
                    // A password in an outline's URL goes to the store, never into the library or the results.
                    let (url, credentials) = HTTPCredentials.splitting(outline.feedURL)
                    // An OPML file came from another program: it names web feeds only (URLPolicy).
                    guard HTTPClient.isHTTP(FeedRefresher.normalized(url)) else {
                        return (index, ImportResult(url: url, podcastId: nil, error: "an OPML file may name only http(s) feeds"))
                    }
                    do throws(SessionError) {
                        let podcast = try await player.subscribe(url, credentials: credentials)
                        return (index, ImportResult(url: url, podcastId: podcast.id, error: nil))
                    } catch {
                        return (index, ImportResult(url: url, podcastId: nil, error: error.message))
                    }
                }
            }
            for await (index, result) in group {
                results[index] = result
                done += 1
                signals.refreshProgress(done, outlines.count)
            }
            return results.compactMap { $0 }
        }
    }
}
