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

/// Builds one `a{sv}` item of the library interface as a `DBusValue`.
package struct ItemBuilder: ItemFields {
    private var entries: [DBusDictionaryEntry] = []

    package init() { entries.reserveCapacity(24) }

    package mutating func set(_ key: String, _ value: DBusValue?) {
        guard let value else { return }
        entries.append(DBusDictionaryEntry(.string(key), .variant(value)))
    }

    package mutating func set(_ key: String, _ text: String?) {
        set(key, text.map { DBusValue.string(Self.bounded($0)) })
    }

    package mutating func set(_ key: String, _ number: Int64?) { set(key, number.map(DBusValue.int64)) }
    package mutating func set(_ key: String, _ number: Int?) { set(key, number.map { DBusValue.int32(Int32(clamping: $0)) }) }
    package mutating func set(_ key: String, _ number: Double?) { set(key, number.flatMap { $0.isFinite ? DBusValue.double($0) : nil }) }
    package mutating func set(_ key: String, _ flag: Bool?) { set(key, flag.map(DBusValue.bool)) }

    package mutating func set(_ key: String, items: [DBusValue]) {
        set(key, DBusValue.array(.dictionary(key: .string, value: .variant), items))
    }

    package var value: DBusValue { .dictionary(key: .string, value: .variant, entries) }

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
                                subscribed: Library.Subscribed = Library.Subscribed()) -> DBusValue {
        var item = ItemBuilder()
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
        item.set("funding", items: nested(details.funding) { funding, sub in
            sub.set("url", funding.url)
            sub.set("text", funding.text)
        })
        item.set("persons", items: nested(details.persons, person))
        item.set("trailers", items: nested(details.trailers) { trailer, sub in
            sub.set("url", trailer.url)
            sub.set("title", trailer.title)
            sub.set("type", trailer.type)
            sub.set("length", trailer.length.map(Int64.init))
            sub.set("published", date: trailer.published)
            sub.set("season", trailer.season)
        })
        item.set("podroll", items: nested(details.podroll) { remote, sub in
            sub.set("feedGuid", remote.feedGuid)
            sub.set("feedURL", remote.feedURL)
            sub.set("itemGuid", remote.itemGuid)
            sub.set("medium", remote.medium)
            sub.set("title", remote.title)
            sub.set("subscribed", subscribed.contains(feedURL: remote.feedURL, guid: remote.feedGuid))
        })
        return item.value
    }

    private static func person(_ person: Person, _ sub: inout ItemBuilder) {
        sub.set("name", person.name)
        sub.set("role", person.role)
        sub.set("group", person.group)
        sub.set("url", person.url)
        sub.set("image", person.image)
    }

    package static func summary(_ episode: EpisodeSummary) -> DBusValue {
        var item = ItemBuilder()
        summaryFields(&item, episode)
        return item.value
    }

    /// `audioURL`: the enclosure it plays (`PreferenceStore.audioURL`), when known.
    package static func episode(_ stored: LibraryEpisode, audioURL: String? = nil) -> DBusValue {
        var item = ItemBuilder()
        summaryFields(&item, stored.summary)
        let episode = stored.episode
        item.set("link", episode.link)
        item.set("author", episode.author)
        item.set("description", episode.description)
        item.set("descriptionHTML", episode.descriptionHTML)
        item.set("artworkURL", episode.artworkURL)
        item.set("explicit", episode.explicit)
        item.set("enclosures", items: nested(episode.enclosures) { enclosure, sub in
            sub.set("url", enclosure.url)
            sub.set("type", enclosure.type)
            sub.set("length", enclosure.length.map(Int64.init))
            sub.set("bitrate", enclosure.bitrate)
            sub.set("title", enclosure.title)
        })
        item.set("chapters", items: nested(episode.chapters) { chapter, sub in
            sub.set("start", chapter.start)
            sub.set("title", chapter.title)
            sub.set("url", chapter.url)
            sub.set("image", chapter.image)
        })
        item.set("chaptersURL", episode.chaptersURL)
        item.set("transcriptURL", episode.transcriptURL)
        item.set("persons", items: nested(episode.persons, person))
        item.set("seasonName", episode.seasonName)
        item.set("soundbites", items: nested(episode.soundbites) { soundbite, sub in
            sub.set("start", soundbite.start)
            sub.set("duration", soundbite.duration)
            sub.set("title", soundbite.title)
        })
        item.set("audioURL", audioURL)
        return item.value
    }

    package static func directoryResult(_ result: DirectoryResult) -> DBusValue {
        var item = ItemBuilder()
        item.set("title", result.title)
        item.set("author", result.author)
        item.set("feedURL", result.feedURL)
        item.set("artworkURL", result.artworkURL)
        item.set("episodeCount", result.episodeCount)
        item.set("source", result.source)
        return item.value
    }

    package static func cue(_ cue: TranscriptCue) -> DBusValue {
        var item = ItemBuilder()
        item.set("start", cue.start)
        item.set("end", cue.end)
        item.set("speaker", cue.speaker)
        item.set("text", cue.text)
        return item.value
    }

    package static func refreshResult(_ summary: RefreshSummary) -> DBusValue {
        var item = ItemBuilder()
        item.set("podcastId", summary.podcastId)
        item.set("title", summary.title)
        item.set("added", summary.added)
        item.set("updated", summary.updated)
        item.set("removed", summary.removed)
        item.set("notModified", summary.notModified)
        item.set("error", summary.error)
        return item.value
    }

    package static func importResult(url: String, podcastId: Int64?, error: String?) -> DBusValue {
        var item = ItemBuilder()
        item.set("url", url)
        item.set("podcastId", podcastId)
        item.set("error", error)
        return item.value
    }

    package static func download(_ info: DownloadInfo) -> DBusValue {
        var item = ItemBuilder()
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
        return item.value
    }

    package static func searchHit(_ hit: SearchHit) -> DBusValue {
        var item = ItemBuilder()
        item.set("episodeId", hit.episodeId)
        item.set("episodeTitle", hit.episodeTitle)
        item.set("podcastTitle", hit.podcastTitle)
        item.set("kind", hit.kind)
        item.set("at", hit.at)
        item.set("snippet", hit.snippet)
        return item.value
    }

    package static func bookmark(_ bookmark: Bookmark) -> DBusValue {
        var item = ItemBuilder()
        item.set("id", bookmark.id)
        item.set("episodeId", bookmark.episodeId)
        item.set("episodeTitle", bookmark.episodeTitle)
        item.set("podcastTitle", bookmark.podcastTitle)
        item.set("position", bookmark.position)
        item.set("note", bookmark.note)
        item.set("cue", bookmark.cue)
        item.set("createdAt", date: bookmark.createdAt)
        return item.value
    }

    package static func playlist(_ playlist: EpisodePlaylist, active: Bool) -> DBusValue {
        var item = ItemBuilder()
        item.set("id", playlist.id)
        item.set("name", playlist.name)
        item.set("kind", playlist.rules == nil ? "list" : "rules")
        item.set("count", Int64(playlist.count))
        item.set("active", active)
        if let rules = playlist.rules {
            var sub = ItemBuilder()
            sub.set("podcasts", DBusValue.array(.int64, rules.podcasts.map(DBusValue.int64)))
            sub.set("unplayed", rules.unplayed)
            sub.set("downloaded", rules.downloaded)
            sub.set("minDuration", rules.minDuration)
            sub.set("maxDuration", rules.maxDuration)
            sub.set("maxAge", rules.maxAge)
            sub.set("title", rules.title)
            sub.set("order", rules.order.rawValue)
            item.set("rules", sub.value)
        }
        item.set("createdAt", date: playlist.createdAt)
        return item.value
    }

    package static func playSession(_ session: PlaySession) -> DBusValue {
        var item = ItemBuilder()
        item.set("episodeId", session.episodeId)
        item.set("podcastId", session.podcastId)
        item.set("episodeTitle", session.episodeTitle)
        item.set("podcastTitle", session.podcastTitle)
        item.set("startedAt", date: session.startedAt)
        item.set("seconds", session.seconds)
        item.set("from", session.from)
        item.set("to", session.to)
        item.set("rate", session.rate)
        return item.value
    }

    package static func listeningStats(_ stats: ListeningStats) -> DBusValue {
        let shares = { (shares: [ListeningStats.Share]) in
            nested(shares) { share, sub in
                sub.set("name", share.name)
                sub.set("podcastId", share.podcastId)
                sub.set("seconds", share.seconds)
                sub.set("saved", share.saved)
            }
        }
        var item = ItemBuilder()
        item.set("seconds", stats.seconds)
        item.set("savedBySpeed", stats.savedBySpeed)
        item.set("savedByTrimming", stats.savedByTrimming)
        item.set("sessions", Int64(stats.sessions))
        item.set("podcasts", items: shares(stats.podcasts))
        item.set("weeks", items: shares(stats.weeks))
        return item.value
    }

    package static func storage(_ info: StorageInfo) -> DBusValue {
        var item = ItemBuilder()
        item.set("bytes", info.bytes)
        item.set("downloadedBytes", info.downloadedBytes)
        item.set("budget", info.budget)
        item.set("episodes", Int64(info.episodes))
        return item.value
    }

    package static func cacheStatus(episodeID: Int64?, buffering: Bool, cached: Double?) -> DBusValue {
        var item = ItemBuilder()
        item.set("episodeId", episodeID)
        item.set("buffering", buffering)
        item.set("cached", cached)
        return item.value
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

    /// Nested items, as many as one page would hold (an episode with
    /// thousands of chapters stays one bounded reply).
    private static func nested<T>(_ values: [T], _ fill: (T, inout ItemBuilder) -> Void) -> [DBusValue] {
        ReplyPage.bounded(values) { value in
            var sub = ItemBuilder()
            fill(value, &sub)
            return sub.value
        }.items
    }

    // MARK: - Sync

    package static func syncResult(_ result: SyncResult) -> DBusValue {
        var item = ItemBuilder()
        item.set("uploaded", result.uploaded)
        item.set("applied", result.applied)
        item.set("subscribed", result.subscribed)
        item.set("unsubscribed", result.unsubscribed)
        item.set("skipped", result.skipped)
        item.set("queued", result.queued)
        item.set("error", result.error)
        return item.value
    }

    package static func syncStatus(_ account: SyncAccount?, queued: Int) -> DBusValue {
        var item = ItemBuilder()
        item.set("enabled", account != nil)
        item.set("server", account?.server)
        item.set("api", account?.api)
        item.set("user", account?.user)
        item.set("device", account?.device)
        item.set("lastSyncAt", date: account?.lastSyncAt)
        item.set("lastError", account?.lastError)
        item.set("queued", queued)
        item.set("clockOffset", account.map(\.clockOffset))
        if let text = account?.lastResult, let last = try? JSONDecoder().decode(SyncResult.self, from: Data(text.utf8)) {
            item.set("last", syncResult(last))
        }
        return item.value
    }
}
