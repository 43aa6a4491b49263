import Foundation
import PodsClient
import PodsDBus
import PodsFeedParser
import PodsLibrary

/// `/org/pods/Library`: the `org.pods.Library1` interface, everything the
/// CLI does with the library. Lists come back as JSON text (the README's
/// schemas); changes are announced with signals.
enum LibraryObject {
    static func make(_ player: LibraryPlayer, signals: LibrarySignals) -> DBusExportedObject {
        let library = player.library
        func method(_ name: String, _ inputs: [DBusArgument] = [], returnsJSON: Bool = false,
                    _ body: @escaping @Sendable ([DBusValue]) async throws(DBusError) -> DBusValue?) -> DBusMethod {
            DBusMethod(name, inputs: inputs, outputs: returnsJSON ? [DBusArgument("json", .string)] : []) { arguments in
                try await body(arguments).map { [$0] } ?? []
            }
        }
        @Sendable func podcastID(_ value: DBusValue) throws(DBusError) -> Int64 {
            try LibraryPlayer.mapped { () throws(LibraryError) in try library.podcast(matching: value.stringValue ?? "").id }
        }
        return DBusExportedObject(path: LibraryNames.objectPath, interfaces: [DBusInterface(
            name: LibraryNames.interface,
            methods: [
                method("Subscribe", [DBusArgument("url", .string)], returnsJSON: true) { arguments throws(DBusError) in
                    let podcast: Podcast
                    do throws(LibraryError) { podcast = try await player.refresher.subscribe(arguments[0].stringValue ?? "") } catch {
                        throw LibraryPlayer.dbusError(error)
                    }
                    signals.podcastsChanged()
                    signals.episodesChanged(podcast.id)
                    Task { await player.prefetchArtwork() }
                    return .string(json(podcast))
                },
                method("Unsubscribe", [DBusArgument("podcast", .string)]) { arguments throws(DBusError) in
                    let id = try podcastID(arguments[0])
                    try LibraryPlayer.mapped { () throws(LibraryError) in try library.unsubscribe(id) }
                    signals.podcastsChanged()
                    signals.queueChanged()
                    return nil
                },
                method("Podcasts", returnsJSON: true) { _ throws(DBusError) in
                    .string(json(try LibraryPlayer.mapped { () throws(LibraryError) in try library.podcasts() }))
                },
                method("Episodes", [DBusArgument("podcast", .string), DBusArgument("unplayedOnly", .bool),
                                    DBusArgument("limit", .int32)], returnsJSON: true) { arguments throws(DBusError) in
                    let id = arguments[0].stringValue?.isEmpty == false ? try podcastID(arguments[0]) : nil
                    let limit = arguments[2].int64Value.flatMap { $0 >= 0 ? Int($0) : nil }
                    return .string(json(try LibraryPlayer.mapped { () throws(LibraryError) in
                        try library.episodes(podcastId: id, unplayedOnly: arguments[1].boolValue ?? false, limit: limit)
                    }))
                },
                method("Refresh", [DBusArgument("podcast", .string)], returnsJSON: true) { arguments throws(DBusError) in
                    let ids = arguments[0].stringValue?.isEmpty == false ? [try podcastID(arguments[0])] : nil
                    let summaries: [RefreshSummary]
                    do throws(LibraryError) {
                        summaries = try await player.refresher.refresh(ids) { done, total in signals.refreshProgress(done, total) }
                    } catch { throw LibraryPlayer.dbusError(error) }
                    for summary in summaries where summary.added + summary.updated + summary.removed > 0 {
                        signals.episodesChanged(summary.podcastId)
                    }
                    signals.podcastsChanged()
                    Task {
                        await player.autoDownload()
                        await player.prefetchArtwork()
                    }
                    return .string(json(summaries))
                },
                method("PlayEpisode", [DBusArgument("episode", .int64)]) { arguments throws(DBusError) in
                    try await player.play(episodeID: arguments[0].int64Value ?? -1)
                    return nil
                },
                method("CurrentEpisode", returnsJSON: true) { _ throws(DBusError) in
                    .string(json(try LibraryPlayer.mapped { () throws(LibraryError) in try library.currentEpisode() }))
                },
                method("Mark", [DBusArgument("episode", .int64), DBusArgument("played", .bool)]) { arguments throws(DBusError) in
                    let id = arguments[0].int64Value ?? -1
                    try LibraryPlayer.mapped { () throws(LibraryError) in try library.markCompleted(id, arguments[1].boolValue ?? true) }
                    signals.statusChanged(id)
                    return nil
                },
                method("Queue", returnsJSON: true) { _ throws(DBusError) in
                    .string(json(try LibraryPlayer.mapped { () throws(LibraryError) in try library.queue() }))
                },
                method("QueueAdd", [DBusArgument("episodes", .array(.int64)), DBusArgument("index", .int32)]) { arguments throws(DBusError) in
                    let ids = arguments[0].arrayValue?.compactMap(\.int64Value) ?? []
                    let index = arguments[1].int64Value.flatMap { $0 >= 0 ? Int($0) : nil }
                    try LibraryPlayer.mapped { () throws(LibraryError) in try library.enqueue(ids, at: index) }
                    signals.queueChanged()
                    return nil
                },
                method("QueueRemove", [DBusArgument("episode", .int64)]) { arguments throws(DBusError) in
                    try LibraryPlayer.mapped { () throws(LibraryError) in try library.dequeue(arguments[0].int64Value ?? -1) }
                    signals.queueChanged()
                    return nil
                },
                method("QueueMove", [DBusArgument("episode", .int64), DBusArgument("index", .int32)]) { arguments throws(DBusError) in
                    try LibraryPlayer.mapped { () throws(LibraryError) in
                        try library.moveInQueue(arguments[0].int64Value ?? -1, to: Int(arguments[1].int64Value ?? 0))
                    }
                    signals.queueChanged()
                    return nil
                },
                method("QueueClear") { _ throws(DBusError) in
                    try LibraryPlayer.mapped { () throws(LibraryError) in try library.clearQueue() }
                    signals.queueChanged()
                    return nil
                },
                method("ImportOPML", [DBusArgument("opml", .string)], returnsJSON: true) { arguments throws(DBusError) in
                    let outlines: [OPML.Outline]
                    do throws(FeedError) { outlines = try OPML.parse(Data((arguments[0].stringValue ?? "").utf8)) } catch {
                        throw DBusError.invalidArgs(error.message)
                    }
                    let results = await withTaskGroup(of: (Int, ImportResult).self) { group in
                        for (index, outline) in outlines.enumerated() {
                            group.addTask {
                                do throws(LibraryError) {
                                    let podcast = try await player.refresher.subscribe(outline.feedURL)
                                    return (index, ImportResult(url: outline.feedURL, podcastId: podcast.id, error: nil))
                                } catch {
                                    return (index, ImportResult(url: outline.feedURL, podcastId: nil, error: error.message))
                                }
                            }
                        }
                        return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                    }
                    signals.podcastsChanged()
                    return .string(json(results.sorted { $0.key < $1.key }.map(\.value)))
                },
                method("Download", [DBusArgument("episode", .int64)]) { arguments throws(DBusError) in
                    try await player.download(episodeID: arguments[0].int64Value ?? -1)
                    return nil
                },
                method("Downloads", returnsJSON: true) { _ throws(DBusError) in
                    .string(json(try await player.downloads()))
                },
                method("DeleteDownload", [DBusArgument("episode", .int64)]) { arguments throws(DBusError) in
                    try await player.deleteDownload(episodeID: arguments[0].int64Value ?? -1)
                    return nil
                },
                method("SetAutoDownload", [DBusArgument("podcast", .string), DBusArgument("count", .uint32)]) { arguments throws(DBusError) in
                    let id = try podcastID(arguments[0])
                    let count = Int(arguments[1].int64Value ?? 0)
                    try LibraryPlayer.mapped { () throws(LibraryError) in try library.setAutoDownload(id, count: count) }
                    signals.podcastsChanged()
                    await player.autoDownload()
                    return nil
                },
                method("Storage", returnsJSON: true) { _ throws(DBusError) in
                    .string(json(try await player.storage()))
                },
                method("SetCacheBudget", [DBusArgument("bytes", .int64)]) { arguments throws(DBusError) in
                    try await player.setCacheBudget(arguments[0].int64Value ?? -1)
                    return nil
                },
                method("CacheStatus", returnsJSON: true) { _ throws(DBusError) in
                    let status = await player.cacheStatus()
                    return .string(json(CacheStatus(episodeId: status.episodeID, buffering: status.buffering, cached: status.cached)))
                },
                method("ExportOPML", returnsJSON: true) { _ throws(DBusError) in
                    let podcasts = try LibraryPlayer.mapped { () throws(LibraryError) in try library.podcasts() }
                    return .string(OPML.document(podcasts.reversed().map { OPML.Outline(title: $0.title, feedURL: $0.feedURL, link: $0.link) }))
                },
            ],
            signals: [
                DBusSignalDescription("PodcastsChanged"),
                DBusSignalDescription("EpisodesChanged", arguments: [DBusArgument("podcast", .int64)]),
                DBusSignalDescription("EpisodeStatusChanged", arguments: [DBusArgument("episode", .int64)]),
                DBusSignalDescription("QueueChanged"),
                DBusSignalDescription("RefreshProgress", arguments: [DBusArgument("done", .uint32), DBusArgument("total", .uint32)]),
                DBusSignalDescription("DownloadsChanged", arguments: [DBusArgument("episode", .int64)]),
            ])])
    }

    fileprivate static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}

/// The loaded episode's cache, for `pods status`.
private struct CacheStatus: Encodable, Sendable {
    var episodeId: Int64?
    var buffering: Bool
    /// The share of the file on disk (nil: not known, streaming plainly).
    var cached: Double?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(episodeId, forKey: .episodeId)
        try c.encode(buffering, forKey: .buffering)
        try c.encode(cached, forKey: .cached)
    }

    private enum Keys: String, CodingKey { case episodeId, buffering, cached }
}

/// One line of `pods import`'s answer.
private struct ImportResult: Encodable, Sendable {
    var url: String
    var podcastId: Int64?
    var error: String?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(url, forKey: .url)
        try c.encode(podcastId, forKey: .podcastId)
        try c.encode(error, forKey: .error)
    }

    private enum Keys: String, CodingKey { case url, podcastId, error }
}
