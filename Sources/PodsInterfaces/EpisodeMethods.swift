import Foundation
import Logging
import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsSession

/// `org.pods.Library2`'s episode methods: listings, one episode, playing
/// and marking, transcripts and artwork.
enum EpisodeMethods {
    static func make(_ session: Session, logger: Logger) -> [DBusMethod] {
        let (library, playback, edits, subscriptions, pictures) =
            (session.library, session.playback, session.edits, session.subscriptions, session.pictures)
        let episodePages = PageReadAhead<EpisodePageKey, DBusWireBody>()
        @Sendable func podcastID(_ text: String) async throws(DBusError) -> Int64 {
            try await onBus { () throws(SessionError) in try await subscriptions.podcastID(text) }
        }
        return [
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
            LibraryMethod.streamEpisodes.handler { arguments throws(DBusError) in
                let filter = try await episodeFilter(arguments[0], podcastID: podcastID)
                guard case .unixFD(let descriptor) = arguments[1] else { throw DBusError.invalidArgs("StreamEpisodes takes a file descriptor") }
                try EpisodeListing.stream(library, filter, into: descriptor, logger: logger)
                return []
            },
            LibraryMethod.episode.handler { arguments throws(DBusError) in
                let id = arguments[0].int64Value ?? -1
                let episode = try await LibraryCall.run { () throws(LibraryError) in try library.episode(id) }
                return [LibraryItemEncoding.episode(episode, audioURL: session.preferences.audioURL(of: episode)).value]
            },
            LibraryMethod.currentEpisode.handler { _ throws(DBusError) in
                let current = try await LibraryCall.run { () throws(LibraryError) in try library.currentEpisode() }
                return [current.map { LibraryItemEncoding.episode($0, audioURL: session.preferences.audioURL(of: $0)).value } ?? ItemBuilder(LibraryItems.episode).value]
            },
            LibraryMethod.playEpisode.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in try await playback.play(episodeID: arguments[0].int64Value ?? -1) }
                return []
            },
            LibraryMethod.find.handler { arguments throws(DBusError) in
                let text = arguments[0].stringValue ?? "", limit = Int(arguments[1].int64Value ?? 20)
                let hits = try await LibraryCall.run { () throws(LibraryError) in try library.search(text, limit: limit) }
                return [LibraryReplies.boundedList(hits, item: { LibraryItemEncoding.searchHit($0).value })]
            },
            LibraryMethod.playEpisodeAt.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in
                    try await playback.play(episodeID: arguments[0].int64Value ?? -1, from: arguments[1].doubleValue ?? -1)
                }
                return []
            },
            LibraryMethod.mark.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in
                    try await edits.mark(arguments[0].int64Value ?? -1, played: arguments[1].boolValue ?? true)
                }
                return []
            },
            LibraryMethod.listTranscript.handler { arguments throws(DBusError) in
                let cues = try await onBus { () throws(SessionError) in try await TranscriptLoader(library: library).cues(of: arguments[0].int64Value ?? -1) }
                return try await LibraryReplies.offsetPaged(Array(arguments.dropFirst()), of: .listTranscript, item: { LibraryItemEncoding.cue($0).value }) {
                    offset, limit throws(DBusError) in Array(cues.dropFirst(offset).prefix(limit))
                }
            },
            LibraryMethod.artwork.handler { arguments throws(DBusError) in
                guard let pictures else { throw DBusError(SessionError(.failed, "podsd keeps no artwork (it runs with --no-cache)")) }
                let file = try await onBus { () throws(SessionError) in
                    try await pictures.picture(episode: arguments[0].int64Value ?? -1, pixels: Int(arguments[1].int64Value ?? 0))
                }
                let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw DBusError(SessionError(.failed, "the rendered artwork could not be opened")) }
                return [.unixFD(DBusFileDescriptor(adopting: descriptor))]
            },
        ]
    }

    /// What one page of `ListEpisodes` asks for.
    private struct EpisodePageKey: Hashable, Sendable {
        var filter: EpisodeFilter
        var cursor: EpisodeCursor?
        var count: Int
    }

    /// `ListEpisodes`' filter: `podcast` (`x` id, or `s` id or title prefix, `""` for all), `unplayed` (`b`)
    /// and `order` (`s`: `newest` or `oldest`; left out, a serial podcast's own list is oldest first).
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
            case ("order", .string("newest")):
                filter.order = .newestFirst
            case ("order", .string("oldest")):
                filter.order = .oldestFirst
            case ("order", .string(let text)):
                throw DBusError.invalidArgs("the filter's order is newest or oldest, not '\(text.prefix(40))'")
            default:
                throw DBusError.invalidArgs("ListEpisodes has no filter '\(key)' of type \(entry.type.signature) "
                                            + "(it takes podcast: x or s, unplayed: b, order: s)")
            }
        }
        return filter
    }
}
