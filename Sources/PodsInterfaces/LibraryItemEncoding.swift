import Foundation
import PodsDBus
import PodsDirectory
import PodsFeedParser
import PodsLibrary
import PodsProtocol
import PodsSession
import PodsTranscripts

/// What an item's encoder writes into, key by key in the schema's order:
/// a `DBusValue` (`ItemBuilder`), or a page's wire bytes (`WireReplyPage`).
/// Unknown values are left out, long strings cut to
/// `LibraryPaging.maxStringBytes`.
package protocol ItemFields {
    mutating func set(_ key: String, _ text: String?)
    mutating func set(_ key: String, _ number: Int64?)
    /// An `i`, clamped.
    mutating func set(_ key: String, _ number: Int?)
    /// Left out unless finite.
    mutating func set(_ key: String, _ number: Double?)
    mutating func set(_ key: String, _ flag: Bool?)
    /// Unix seconds, as an `x`.
    mutating func set(_ key: String, date: Date?)
}

extension ItemFields {
    package mutating func set(_ key: String, date: Date?) {
        set(key, date.map { Int64(clamping: Int64(exactly: $0.timeIntervalSince1970.rounded(.down)) ?? 0) })
    }
}

/// Builds one `a{sv}` item as a `DBusValue`, written through its schema:
/// it notes the keys left out (with the type they would have had), so
/// with what it holds `mismatches` can say where an encoder and its `ItemSchema`
/// part: a key not in the schema, of another type, a required one left
/// out, one never written (`ItemSchemaTests` holds every encoder to it).
package struct ItemBuilder: ItemFields {
    /// What the item is.
    package let schema: ItemSchema
    private var entries: [DBusDictionaryEntry] = []
    /// Keys written without a value, with the type they would have had.
    private var leftOut: [(key: String, type: DBusType)] = []
    /// The first of each nested key's items, checked against its own schema.
    private var nested: [String: ItemBuilder] = [:]

    package init(_ schema: ItemSchema) {
        self.schema = schema
        entries.reserveCapacity(schema.fields.count)
    }

    private mutating func put(_ key: String, _ type: DBusType, _ value: DBusValue?) {
        guard let value else {
            leftOut.append((key, type))
            return
        }
        entries.append(DBusDictionaryEntry(.string(key), .variant(value)))
    }

    package mutating func set(_ key: String, _ text: String?) { put(key, .string, text.map { DBusValue.string(Self.bounded($0)) }) }
    package mutating func set(_ key: String, _ number: Int64?) { put(key, .int64, number.map(DBusValue.int64)) }
    package mutating func set(_ key: String, _ number: Int?) { put(key, .int32, number.map { DBusValue.int32(Int32(clamping: $0)) }) }
    package mutating func set(_ key: String, _ number: Double?) { put(key, .double, number.flatMap { $0.isFinite ? DBusValue.double($0) : nil }) }
    package mutating func set(_ key: String, _ flag: Bool?) { put(key, .bool, flag.map(DBusValue.bool)) }
    package mutating func set(_ key: String, _ ids: [Int64]) { put(key, .array(.int64), .array(.int64, ids.map(DBusValue.int64))) }

    /// A nested item (nil: left out).
    package mutating func set(_ key: String, object: ItemBuilder?) {
        put(key, Self.variantDictionary, object?.value)
        if let object { nested[key] = object }
    }

    /// Nested items, as many as one page would hold (an episode with
    /// thousands of chapters stays one bounded reply).
    package mutating func set<T>(_ key: String, _ values: [T], as schema: ItemSchema, _ fill: (T, inout ItemBuilder) -> Void) {
        var first: ItemBuilder?
        let page = ReplyPage.bounded(values) { value in
            var sub = ItemBuilder(schema)
            fill(value, &sub)
            if first == nil { first = sub }
            return sub.value
        }
        put(key, .array(Self.variantDictionary), .array(Self.variantDictionary, page.items))
        if let first { nested[key] = first }
    }

    package var value: DBusValue { .dictionary(key: .string, value: .variant, entries) }

    /// Where what was written and the schema part (empty: nowhere); nested
    /// items are checked by their first, against their own schema.
    package var mismatches: [String] {
        var problems: [String] = []
        let fields = Dictionary(schema.fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        let written = entries.map { entry in
            (key: entry.key.stringValue ?? "", type: entry.value.unwrapped.type, present: true)
        } + leftOut.map { (key: $0.key, type: $0.type, present: false) }
        for (key, type, present) in written {
            let at = "\(schema.name).\(key)"
            guard let field = fields[key] else {
                problems.append("\(at) is not in the schema")
                continue
            }
            if !seen.insert(key).inserted { problems.append("\(at) is written twice") }
            if field.type != type { problems.append("\(at) is written as \(type.signature), declared \(field.type.signature)") }
            if !present, !field.optional { problems.append("\(at) is required but was left out") }
        }
        for field in schema.fields where !seen.contains(field.name) { problems.append("\(schema.name).\(field.name) is never written") }
        for (key, item) in nested.sorted(by: { $0.key < $1.key }) {
            if fields[key]?.form.nestedSchema?.name != item.schema.name {
                problems.append("\(schema.name).\(key) holds \(item.schema.name) items, declared otherwise")
            }
            problems += item.mismatches
        }
        return problems
    }

    private static let variantDictionary = DBusType.dictionary(key: .string, value: .variant)

    /// Cut at a character boundary to at most `maxStringBytes` UTF-8 bytes.
    package static func bounded(_ text: String) -> String {
        guard text.utf8.count > LibraryPaging.maxStringBytes else { return text }
        let utf8 = Array(text.utf8.prefix(LibraryPaging.maxStringBytes + 1))
        var end = LibraryPaging.maxStringBytes
        while end > 0, utf8[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a character's bytes
        return String(decoding: utf8[..<end], as: UTF8.self)
    }
}

/// One reply's items, filled row by row until `maxBytes` (a page's
/// `LibraryPaging.maxBytes` by default) or the page's item count, whichever
/// comes first (at least one item).
package struct ReplyPage {
    private(set) var items: [DBusValue] = []
    private var bytes = 0
    private let count: Int
    private let maxBytes: Int
    /// Set when a row came that the page has no room for: a page follows.
    private(set) var hasMore = false

    package init(count: Int, maxBytes: Int = LibraryPaging.maxBytes) {
        self.count = count
        self.maxBytes = maxBytes
    }

    /// Adds the item of one more row; false (setting `hasMore`) when it
    /// does not fit, and then the page takes nothing more.
    package mutating func add(_ item: () -> DBusValue) -> Bool {
        guard !hasMore, items.count < count else {
            hasMore = true
            return false
        }
        let value = item()
        let size = value.marshalledSizeEstimate
        if !items.isEmpty, bytes + size > maxBytes {
            hasMore = true
            return false
        }
        items.append(value)
        bytes += size
        return true
    }

    /// The items as an `aa{sv}`.
    package var list: DBusValue { list(of: .dictionary(key: .string, value: .variant)) }

    /// The items as an array of `type` (for replies of other shapes than `aa{sv}`).
    package func list(of type: DBusType) -> DBusValue { .array(type, items) }

    /// `[aa{sv}, s next]`: `next` is the cursor after the last item when a
    /// page follows, else the empty cursor.
    package func reply(next: (_ lastIndex: Int) -> String) -> [DBusValue] {
        [list, .string(hasMore && !items.isEmpty ? next(items.count - 1) : LibraryPaging.start)]
    }

    /// As many of `values`' items as fit one reply.
    package static func bounded<Values: Sequence>(_ values: Values, item: (Values.Element) -> DBusValue) -> ReplyPage {
        var page = ReplyPage(count: LibraryPaging.maxItems, maxBytes: LibraryPaging.maxReplyBytes)
        for value in values where !page.add({ item(value) }) { break }
        return page
    }

    /// `o.<offset>`: the cursor of lists paged by position (podcasts, the queue, downloads).
    package static func offsetCursor(_ offset: Int) -> String { "o.\(offset)" }

    /// The offset an `o.` cursor names; 0 for the first page, nil for anything else.
    package static func offset(from cursor: String) -> Int? {
        if cursor == LibraryPaging.start { return 0 }
        guard cursor.hasPrefix("o."), let offset = Int(cursor.dropFirst(2)), offset >= 0 else { return nil }
        return offset
    }
}

// MARK: - Items

package enum LibraryItemEncoding {
    /// `subscribed`: every subscription's feed URL and guid, to tell which of
    /// the podroll's shows the listener already has.
    package static func podcast(_ podcast: Podcast, nextRefresh: Date? = nil,
                                subscribed: Library.Subscribed = Library.Subscribed()) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.podcast)
        item.set("id", podcast.id)
        item.set("title", podcast.title)
        item.set("author", podcast.author)
        item.set("feedURL", podcast.feedURL)
        item.set("link", podcast.link)
        item.set("artworkURL", podcast.artworkURL)
        item.set("episodeCount", Int64(podcast.episodeCount))
        item.set("unplayedCount", Int64(podcast.unplayedCount))
        item.set("subscribedAt", date: podcast.subscribedAt)
        item.set("serial", podcast.serial)
        item.set("lastRefreshedAt", date: podcast.lastRefreshedAt)
        item.set("lastError", podcast.lastError)
        item.set("autoDownload", podcast.autoDownload)
        item.set("nextRefreshAt", date: nextRefresh.map { max($0, Date()) })
        let details = podcast.details
        item.set("guid", details.guid)
        item.set("medium", details.medium)
        item.set("updateFrequency", details.updateFrequency?.text)
        item.set("updateRule", details.updateFrequency?.rule)
        item.set("complete", details.updateFrequency?.complete ?? false)
        item.set("funding", details.funding, as: LibraryItems.funding) { funding, sub in
            sub.set("url", funding.url)
            sub.set("text", funding.text)
        }
        item.set("persons", details.persons, as: LibraryItems.person, person)
        item.set("trailers", details.trailers, as: LibraryItems.trailer) { trailer, sub in
            sub.set("url", trailer.url)
            sub.set("title", trailer.title)
            sub.set("type", trailer.type)
            sub.set("length", trailer.length.map(Int64.init))
            sub.set("published", date: trailer.published)
            sub.set("season", trailer.season)
        }
        item.set("podroll", details.podroll, as: LibraryItems.remoteItem) { remote, sub in
            sub.set("feedGuid", remote.feedGuid)
            sub.set("feedURL", remote.feedURL)
            sub.set("itemGuid", remote.itemGuid)
            sub.set("medium", remote.medium)
            sub.set("title", remote.title)
            sub.set("subscribed", subscribed.contains(feedURL: remote.feedURL, guid: remote.feedGuid))
        }
        return item
    }

    private static func person(_ person: Person, _ sub: inout ItemBuilder) {
        sub.set("name", person.name)
        sub.set("role", person.role)
        sub.set("group", person.group)
        sub.set("url", person.url)
        sub.set("image", person.image)
    }

    package static func summary(_ episode: EpisodeSummary) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.episodeSummary)
        summaryFields(&item, episode)
        return item
    }

    /// `audioURL`: the enclosure it plays (`PreferenceStore.audioURL`), when known.
    package static func episode(_ stored: LibraryEpisode, audioURL: String? = nil) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.episode)
        summaryFields(&item, stored.summary)
        let episode = stored.episode
        item.set("link", episode.link)
        item.set("author", episode.author)
        item.set("description", episode.description)
        item.set("descriptionHTML", episode.descriptionHTML)
        item.set("artworkURL", episode.artworkURL)
        item.set("explicit", episode.explicit)
        item.set("enclosures", episode.enclosures, as: LibraryItems.enclosure) { enclosure, sub in
            sub.set("url", enclosure.url)
            sub.set("type", enclosure.type)
            sub.set("length", enclosure.length.map(Int64.init))
            sub.set("bitrate", enclosure.bitrate)
            sub.set("title", enclosure.title)
        }
        item.set("chapters", episode.chapters, as: LibraryItems.chapter) { chapter, sub in
            sub.set("start", chapter.start)
            sub.set("title", chapter.title)
            sub.set("url", chapter.url)
            sub.set("image", chapter.image)
        }
        item.set("chaptersURL", episode.chaptersURL)
        item.set("transcriptURL", episode.transcriptURL)
        item.set("persons", episode.persons, as: LibraryItems.person, person)
        item.set("seasonName", episode.seasonName)
        item.set("soundbites", episode.soundbites, as: LibraryItems.soundbite) { soundbite, sub in
            sub.set("start", soundbite.start)
            sub.set("duration", soundbite.duration)
            sub.set("title", soundbite.title)
        }
        item.set("audioURL", audioURL)
        return item
    }

    package static func directoryResult(_ result: DirectoryResult) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.directoryResult)
        item.set("title", result.title)
        item.set("author", result.author)
        item.set("feedURL", result.feedURL)
        item.set("artworkURL", result.artworkURL)
        item.set("episodeCount", result.episodeCount)
        item.set("source", result.source)
        return item
    }

    package static func cue(_ cue: TranscriptCue) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.cue)
        item.set("start", cue.start)
        item.set("end", cue.end)
        item.set("speaker", cue.speaker)
        item.set("text", cue.text)
        return item
    }

    package static func refreshResult(_ summary: RefreshSummary) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.refreshResult)
        item.set("podcastId", summary.podcastId)
        item.set("title", summary.title)
        item.set("added", summary.added)
        item.set("updated", summary.updated)
        item.set("removed", summary.removed)
        item.set("notModified", summary.notModified)
        item.set("error", summary.error)
        return item
    }

    package static func importResult(url: String, podcastId: Int64?, error: String?) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.importResult)
        item.set("url", url)
        item.set("podcastId", podcastId)
        item.set("error", error)
        return item
    }

    package static func download(_ info: DownloadInfo) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.download)
        item.set("episodeId", info.episodeId)
        item.set("podcastId", info.podcastId)
        item.set("title", info.title)
        item.set("podcastTitle", info.podcastTitle)
        item.set("state", info.state)
        item.set("bytes", info.bytes)
        item.set("size", info.size)
        item.set("pinned", info.pinned)
        item.set("byHand", info.byHand)
        item.set("path", info.path)
        item.set("error", info.error)
        item.set("loudness", info.loudness?.integrated)
        item.set("truePeak", info.loudness?.truePeak)
        return item
    }

    package static func searchHit(_ hit: SearchHit) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.searchHit)
        item.set("episodeId", hit.episodeId)
        item.set("episodeTitle", hit.episodeTitle)
        item.set("podcastTitle", hit.podcastTitle)
        item.set("kind", hit.kind)
        item.set("at", hit.at)
        item.set("snippet", hit.snippet)
        return item
    }

    package static func bookmark(_ bookmark: Bookmark) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.bookmark)
        item.set("id", bookmark.id)
        item.set("episodeId", bookmark.episodeId)
        item.set("episodeTitle", bookmark.episodeTitle)
        item.set("podcastTitle", bookmark.podcastTitle)
        item.set("position", bookmark.position)
        item.set("note", bookmark.note)
        item.set("cue", bookmark.cue)
        item.set("createdAt", date: bookmark.createdAt)
        return item
    }

    package static func playlist(_ playlist: EpisodePlaylist, active: Bool) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.playlist)
        item.set("id", playlist.id)
        item.set("name", playlist.name)
        item.set("kind", playlist.rules == nil ? "list" : "rules")
        item.set("count", Int64(playlist.count))
        item.set("active", active)
        item.set("rules", object: playlist.rules.map { rules in
            var sub = ItemBuilder(LibraryItems.playlistRules)
            sub.set("podcasts", rules.podcasts)
            sub.set("unplayed", rules.unplayed)
            sub.set("downloaded", rules.downloaded)
            sub.set("minDuration", rules.minDuration)
            sub.set("maxDuration", rules.maxDuration)
            sub.set("maxAge", rules.maxAge)
            sub.set("title", rules.title)
            sub.set("order", rules.order.rawValue)
            return sub
        })
        item.set("createdAt", date: playlist.createdAt)
        return item
    }

    package static func playSession(_ session: PlaySession) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.playSession)
        item.set("episodeId", session.episodeId)
        item.set("podcastId", session.podcastId)
        item.set("episodeTitle", session.episodeTitle)
        item.set("podcastTitle", session.podcastTitle)
        item.set("startedAt", date: session.startedAt)
        item.set("seconds", session.seconds)
        item.set("from", session.from)
        item.set("to", session.to)
        item.set("rate", session.rate)
        return item
    }

    package static func listeningStats(_ stats: ListeningStats) -> ItemBuilder {
        func share(_ share: ListeningStats.Share, _ sub: inout ItemBuilder) {
            sub.set("name", share.name)
            sub.set("podcastId", share.podcastId)
            sub.set("seconds", share.seconds)
            sub.set("saved", share.saved)
        }
        var item = ItemBuilder(LibraryItems.listeningStats)
        item.set("seconds", stats.seconds)
        item.set("savedBySpeed", stats.savedBySpeed)
        item.set("savedByTrimming", stats.savedByTrimming)
        item.set("sessions", Int64(stats.sessions))
        item.set("podcasts", stats.podcasts, as: LibraryItems.listeningShare, share)
        item.set("weeks", stats.weeks, as: LibraryItems.listeningShare, share)
        return item
    }

    package static func storage(_ info: StorageInfo) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.storage)
        item.set("bytes", info.bytes)
        item.set("downloadedBytes", info.downloadedBytes)
        item.set("budget", info.budget)
        item.set("episodes", Int64(info.episodes))
        return item
    }

    package static func cacheStatus(episodeID: Int64?, buffering: Bool, cached: Double?) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.cacheStatus)
        item.set("episodeId", episodeID)
        item.set("buffering", buffering)
        item.set("cached", cached)
        return item
    }

    // MARK: Helpers

    package static func summaryFields<Item: ItemFields>(_ item: inout Item, _ episode: EpisodeSummary) {
        item.set("id", episode.id)
        item.set("podcastId", episode.podcastId)
        item.set("podcastTitle", episode.podcastTitle)
        item.set("guid", episode.guid)
        item.set("title", episode.title)
        item.set("published", date: episode.published)
        item.set("duration", episode.duration)
        item.set("position", episode.position)
        item.set("completed", episode.completed)
        item.set("lastPlayedAt", date: episode.lastPlayedAt)
        item.set("currentlyPlaying", episode.currentlyPlaying)
        item.set("inFeed", episode.inFeed)
        item.set("season", episode.season)
        item.set("number", episode.number)
        item.set("episodeType", episode.episodeType)
        item.set("url", episode.url)
    }

    // MARK: - Sync

    package static func syncResult(_ result: SyncResult) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.syncResult)
        item.set("uploaded", result.uploaded)
        item.set("applied", result.applied)
        item.set("subscribed", result.subscribed)
        item.set("unsubscribed", result.unsubscribed)
        item.set("skipped", result.skipped)
        item.set("queued", result.queued)
        item.set("error", result.error)
        return item
    }

    package static func syncStatus(_ account: SyncAccount?, queued: Int) -> ItemBuilder {
        var item = ItemBuilder(LibraryItems.syncStatus)
        item.set("enabled", account != nil)
        item.set("server", account?.server)
        item.set("api", account?.api)
        item.set("user", account?.user)
        item.set("device", account?.device)
        item.set("lastSyncAt", date: account?.lastSyncAt)
        item.set("lastError", account?.lastError)
        item.set("queued", queued)
        item.set("clockOffset", account.map(\.clockOffset))
        let last = account?.lastResult.flatMap { text in try? JSONDecoder().decode(SyncResult.self, from: Data(text.utf8)) }
        item.set("last", object: last.map(syncResult))
        return item
    }
}
