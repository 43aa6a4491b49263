import PodsDBus

/// Every kind of item `org.pods.Library2` sends (see docs/dbus-library.md).
public enum LibraryItems {
    /// A subscription (`ListPodcasts`, `Subscribe`, `Podcast`).
    public static let podcast = ItemSchema("podcast", [
        ItemField("id", .int64), ItemField("title", .string), .maybe("author", .string), ItemField("feedURL", .string),
        .maybe("link", .string), .maybe("artworkURL", .string), ItemField("episodeCount", .int64),
        ItemField("unplayedCount", .int64), ItemField("subscribedAt", .int64, .date), .maybe("lastRefreshedAt", .int64, .date),
        .maybe("lastError", .string), ItemField("autoDownload", .int32), .maybe("nextRefreshAt", .int64, .date),
        ItemField("serial", .bool), .maybe("guid", .string), .maybe("medium", .string), .maybe("updateFrequency", .string),
        .maybe("updateRule", .string), ItemField("complete", .bool),
        ItemField("funding", .array(variantDictionary), .items(funding)), ItemField("persons", .array(variantDictionary), .items(person)),
        ItemField("trailers", .array(variantDictionary), .items(trailer)),
        ItemField("podroll", .array(variantDictionary), .items(remoteItem)),
    ])

    /// A `podcast:funding` link of a podcast.
    public static let funding = ItemSchema("funding", [ItemField("url", .string), .maybe("text", .string)])

    /// A `podcast:trailer` (`pods play URL` plays it).
    public static let trailer = ItemSchema("trailer", [
        ItemField("url", .string), ItemField("title", .string), .maybe("type", .string), .maybe("length", .int64),
        .maybe("published", .int64, .date), .maybe("season", .int32),
    ])

    /// A show a podcast's `podcast:podroll` recommends (`feedURL`, when given, subscribes).
    public static let remoteItem = ItemSchema("remoteItem", [
        ItemField("feedGuid", .string), .maybe("feedURL", .string), .maybe("itemGuid", .string), .maybe("medium", .string),
        .maybe("title", .string), ItemField("subscribed", .bool),
    ])

    /// A `podcast:soundbite` of an episode (seconds).
    public static let soundbite = ItemSchema("soundbite", [
        ItemField("start", .double), ItemField("duration", .double), .maybe("title", .string),
    ])

    /// What a list of episodes shows (`ListEpisodes`, `ListQueue`): no
    /// descriptions, chapters or people; `Episode` gives those.
    public static let episodeSummary = ItemSchema("episodeSummary", summaryFields)

    /// One episode in full (`Episode`, `CurrentEpisode`).
    public static let episode = ItemSchema("episode", summaryFields + [
        .maybe("link", .string), .maybe("author", .string), ItemField("description", .string),
        .maybe("descriptionHTML", .string), .maybe("artworkURL", .string), .maybe("explicit", .bool),
        ItemField("enclosures", .array(variantDictionary), .items(enclosure)),
        ItemField("chapters", .array(variantDictionary), .items(chapter)), .maybe("chaptersURL", .string),
        .maybe("transcriptURL", .string), ItemField("persons", .array(variantDictionary), .items(person)),
        .maybe("seasonName", .string), ItemField("soundbites", .array(variantDictionary), .items(soundbite)),
        .maybe("audioURL", .string),
    ])

    private static let summaryFields: [ItemField] = [
        ItemField("id", .int64), ItemField("podcastId", .int64), ItemField("podcastTitle", .string), ItemField("guid", .string),
        ItemField("title", .string), .maybe("published", .int64, .date), .maybe("duration", .double),
        ItemField("position", .double), ItemField("completed", .bool), .maybe("lastPlayedAt", .int64, .date),
        ItemField("currentlyPlaying", .bool), ItemField("inFeed", .bool), .maybe("season", .int32), .maybe("number", .int32),
        .maybe("episodeType", .string), .maybe("url", .string),
    ]

    public static let enclosure = ItemSchema("enclosure", [
        ItemField("url", .string), .maybe("type", .string), .maybe("length", .int64), .maybe("bitrate", .double),
        .maybe("title", .string),
    ])

    public static let chapter = ItemSchema("chapter", [
        ItemField("start", .double), ItemField("title", .string), .maybe("url", .string), .maybe("image", .string),
    ])

    /// One piece of a transcript (times in seconds, when the format has them).
    public static let cue = ItemSchema("cue", [
        .maybe("start", .double), .maybe("end", .double), .maybe("speaker", .string), ItemField("text", .string),
    ])

    public static let person = ItemSchema("person", [
        ItemField("name", .string), .maybe("role", .string), .maybe("group", .string), .maybe("url", .string),
        .maybe("image", .string),
    ])

    /// What a refresh did to one podcast.
    public static let refreshResult = ItemSchema("refreshResult", [
        ItemField("podcastId", .int64), ItemField("title", .string), ItemField("added", .int32), ItemField("updated", .int32),
        ItemField("removed", .int32), ItemField("notModified", .bool), .maybe("error", .string),
    ])

    /// A podcast a directory found (`Search`).
    /// A moment `Find` found: the episode, where (`kind`: title, notes,
    /// chapter, transcript; `at` seconds in, for the last two), and the
    /// words around it with the matched ones in `[` `]`.
    public static let searchHit = ItemSchema("searchHit", [
        ItemField("episodeId", .int64), ItemField("episodeTitle", .string), ItemField("podcastTitle", .string),
        ItemField("kind", .string), .maybe("at", .double), ItemField("snippet", .string),
    ])

    public static let directoryResult = ItemSchema("directoryResult", [
        ItemField("title", .string), .maybe("author", .string), ItemField("feedURL", .string), .maybe("artworkURL", .string),
        .maybe("episodeCount", .int32), ItemField("source", .string),
    ])

    /// What importing one OPML outline did.
    public static let importResult = ItemSchema("importResult", [
        ItemField("url", .string), .maybe("podcastId", .int64), .maybe("error", .string),
    ])

    /// A cached or downloaded episode (`ListDownloads`).
    public static let download = ItemSchema("download", [
        ItemField("episodeId", .int64), ItemField("podcastId", .int64), ItemField("title", .string),
        ItemField("podcastTitle", .string), ItemField("state", .string), ItemField("bytes", .int64), ItemField("size", .int64),
        ItemField("pinned", .bool), ItemField("byHand", .bool), ItemField("path", .string), .maybe("error", .string),
        /// The downloaded file's loudness (LUFS) and true peak (dBTP), once measured (`loudness = "on"`).
        .maybe("loudness", .double), .maybe("truePeak", .double),
    ])

    /// A moment marked in an episode (`ListBookmarks`): seconds in, the
    /// listener's note, the transcript's line there when it was kept.
    public static let bookmark = ItemSchema("bookmark", [
        ItemField("id", .int64), ItemField("episodeId", .int64), ItemField("episodeTitle", .string),
        ItemField("podcastTitle", .string), ItemField("position", .double), ItemField("note", .string), .maybe("cue", .string),
        ItemField("createdAt", .int64, .date),
    ])

    /// What a playlist of rules holds (`CreatePlaylist` takes the same keys, and `manual` b for a list kept by hand).
    public static let playlistRules = ItemSchema("playlistRules", [
        ItemField("podcasts", .array(.int64)), ItemField("unplayed", .bool), ItemField("downloaded", .bool),
        .maybe("minDuration", .double), .maybe("maxDuration", .double), .maybe("maxAge", .double), .maybe("title", .string),
        ItemField("order", .string),
    ])

    /// A playlist (`ListPlaylists`): `kind` is `rules` or `list` (kept by
    /// hand); `count`, the episodes it holds now; `active`, what plays next.
    public static let playlist = ItemSchema("playlist", [
        ItemField("id", .int64), ItemField("name", .string), ItemField("kind", .string), ItemField("count", .int64),
        ItemField("active", .bool), .maybe("rules", variantDictionary, .object(playlistRules)), ItemField("createdAt", .int64, .date),
    ])

    /// One stretch of listening (`ListPlaySessions`): seconds of wall time
    /// heard, from and to (seconds into the episode), at `rate`.
    public static let playSession = ItemSchema("playSession", [
        ItemField("episodeId", .int64), ItemField("podcastId", .int64), ItemField("episodeTitle", .string),
        ItemField("podcastTitle", .string), ItemField("startedAt", .int64, .date), ItemField("seconds", .double),
        ItemField("from", .double), ItemField("to", .double), ItemField("rate", .double),
    ])

    /// Heard and saved within one podcast (with its id) or one week (`name` its Monday).
    public static let listeningShare = ItemSchema("listeningShare", [
        ItemField("name", .string), .maybe("podcastId", .int64), ItemField("seconds", .double), ItemField("saved", .double),
    ])

    /// Seconds heard and saved (`ListeningStats`), by podcast (most heard
    /// first) and by week (oldest first), each at most 520.
    public static let listeningStats = ItemSchema("listeningStats", [
        ItemField("seconds", .double), ItemField("savedBySpeed", .double), ItemField("savedByTrimming", .double),
        ItemField("sessions", .int64), ItemField("podcasts", .array(variantDictionary), .items(listeningShare)),
        ItemField("weeks", .array(variantDictionary), .items(listeningShare)),
    ])

    /// The cache's size and budget (`Storage`).
    public static let storage = ItemSchema("storage", [
        ItemField("bytes", .int64), ItemField("downloadedBytes", .int64), ItemField("budget", .int64),
        ItemField("episodes", .int64),
    ])

    /// The loaded episode's cache (`CacheStatus`).
    public static let cacheStatus = ItemSchema("cacheStatus", [
        .maybe("episodeId", .int64), ItemField("buffering", .bool), .maybe("cached", .double),
    ])

    /// What one sync did (`Sync`).
    public static let syncResult = ItemSchema("syncResult", [
        ItemField("uploaded", .int32), ItemField("applied", .int32), ItemField("subscribed", .int32),
        ItemField("unsubscribed", .int32), ItemField("skipped", .int32), ItemField("queued", .int32), .maybe("error", .string),
    ])

    /// The sync account and how the last sync went (`SyncStatus`, `SetupSync`);
    /// empty of `server` when syncing is off.
    public static let syncStatus = ItemSchema("syncStatus", [
        ItemField("enabled", .bool), .maybe("server", .string), .maybe("api", .string), .maybe("user", .string),
        .maybe("device", .string), .maybe("lastSyncAt", .int64, .date), .maybe("lastError", .string),
        ItemField("queued", .int32), .maybe("clockOffset", .double), .maybe("last", variantDictionary, .object(syncResult)),
    ])

    static let variantDictionary = DBusType.dictionary(key: .string, value: .variant)
}

/// The bounds on every list reply, whatever the library holds.
public enum LibraryPaging {
    /// Items in one page when the caller asks for 0.
    public static let defaultItems = 200
    /// The most items one page holds; a larger limit is lowered to this.
    public static let maxItems = 1000
    /// A page stops growing before its items pass this many bytes (at least
    /// one item). Small, because the bus daemon relays one message at a
    /// time: an MPRIS call that arrives behind a page waits for it (at
    /// 256 KiB, a p99 of 6–14 ms during a whole-library listing; at 64 KiB,
    /// 4–6 ms), and with pages in flight (`ahead`) small pages cost a
    /// listing little.
    public static let maxBytes = 64 << 10
    /// The bound of a reply that is not paged, such as a refresh's or an
    /// import's results (about 2,000 of them).
    public static let maxReplyBytes = 256 << 10
    /// Longer strings inside an item are cut to this many bytes (a hostile
    /// feed's megabyte title cannot blow a page up).
    public static let maxStringBytes = 64 << 10
    /// The cursor of the first page, and the `next` of the last one.
    public static let start = ""

    /// The most pages a cursor may reach ahead (`cursor+k`).
    public static let maxAhead = 16

    /// `ListEpisodes` also takes `cursor+k` (1 ≤ k ≤ `maxAhead`): the k-th
    /// page after the one at `cursor`, so a client can have the next few
    /// pages in flight before the first of them arrives.
    public static func ahead(_ cursor: String, _ pages: Int) -> String {
        pages == 0 ? cursor : "\(cursor)+\(pages)"
    }

    /// A cursor and how many pages past it (nil: a malformed `+k`).
    public static func splitAhead(_ text: String) -> (cursor: String, pages: Int)? {
        guard let plus = text.lastIndex(of: "+") else { return (text, 0) }
        guard let pages = Int(text[text.index(after: plus)...]), (1...maxAhead).contains(pages) else { return nil }
        return (String(text[..<plus]), pages)
    }

    /// The item count to fetch for a requested `limit`.
    public static func itemCount(for limit: UInt32) -> Int {
        limit == 0 ? defaultItems : min(Int(limit), maxItems)
    }
}
