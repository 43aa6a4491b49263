import PodsDBus

/// A method of one of Pods' own interfaces (`Interface` tells which), with
/// its typed arguments: podsd attaches a handler to each, `pods` calls them
/// by these names, and introspection is written from them.
public struct InterfaceMethod<Interface>: Sendable {
    public let name: String
    public let inputs: [DBusArgument]
    public let outputs: [DBusArgument]
    /// How long `pods` waits for the answer, and podsd works on it before
    /// cancelling; nil for a quick method (podsd gives it D-Bus's default
    /// 25 s, `pods` its own shorter wait).
    public let timeout: Duration?
    /// A read: dropped when its caller leaves the bus before the answer
    /// (what changes something is carried out all the same).
    public let reads: Bool

    init(_ name: String, _ inputs: [DBusArgument] = [], _ outputs: [DBusArgument] = [], timeout: Duration? = nil, reads: Bool = false) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.timeout = timeout
        self.reads = reads
    }

    /// The exported method: `handler` answers it, cancelled past `timeout`.
    public func exported(_ handler: @escaping DBusMethod.Handler) -> DBusMethod {
        var method = DBusMethod(name, inputs: inputs, outputs: outputs, timeout: timeout ?? DBusMethod.defaultTimeout, handler: handler)
        method.abandonedWhenCallerLeaves = reads
        return method
    }

    /// The same, answered with a body `handler` writes in the wire format.
    public func exported(body handler: @escaping DBusMethod.BodyHandler) -> DBusMethod {
        var method = DBusMethod.answeringWithBody(name, inputs: inputs, outputs: outputs, timeout: timeout ?? DBusMethod.defaultTimeout, handler)
        method.abandonedWhenCallerLeaves = reads
        return method
    }
}

/// Marks `org.pods.Library2`'s methods.
public enum LibraryInterface {}
/// A method of `org.pods.Library2`.
public typealias LibraryMethod = InterfaceMethod<LibraryInterface>

extension InterfaceMethod where Interface == LibraryInterface {
    // MARK: - Podcasts

    public static let subscribe = LibraryMethod("Subscribe", [DBusArgument("url", .string)], [item("podcast", LibraryItems.podcast)],
                                                  timeout: .seconds(120))
    /// A private feed: the user name and password are kept apart from the
    /// URL (Secret Service, else a 0600 file) and used for its host only.
    public static let subscribeWithCredentials = LibraryMethod(
        "SubscribeWithCredentials", [DBusArgument("url", .string), DBusArgument("user", .string), DBusArgument("password", .string)],
        [item("podcast", LibraryItems.podcast)], timeout: .seconds(120))
    public static let unsubscribe = LibraryMethod("Unsubscribe", [DBusArgument("podcast", .string)])
    /// A podcast by id or an unambiguous title prefix.
    public static let podcast = LibraryMethod("Podcast", [DBusArgument("podcast", .string)], [item("podcast", LibraryItems.podcast)], reads: true)
    public static let listPodcasts = LibraryMethod("ListPodcasts", pageInputs, page("podcasts", LibraryItems.podcast), reads: true)
    public static let refresh = LibraryMethod(
        "Refresh", [DBusArgument("podcast", .string)], [items("results", LibraryItems.refreshResult)], timeout: .seconds(600))
    public static let importOPML = LibraryMethod(
        "ImportOPML", [DBusArgument("opml", .string)], [items("results", LibraryItems.importResult)], timeout: .seconds(600))
    /// Podcast directories (iTunes, and Podcast Index when configured), merged.
    public static let search = LibraryMethod(
        "Search", [DBusArgument("term", .string), DBusArgument("limit", .uint32)], [items("results", LibraryItems.directoryResult)],
        timeout: .seconds(45), reads: true)
    /// The library's own text: titles, show notes, chapter titles and transcript lines (SQLite FTS5).
    public static let find = LibraryMethod(
        "Find", [DBusArgument("text", .string), DBusArgument("limit", .uint32)], [items("hits", LibraryItems.searchHit)],
        timeout: .seconds(20), reads: true)
    public static let setAutoDownload = LibraryMethod(
        "SetAutoDownload", [DBusArgument("podcast", .string), DBusArgument("count", .uint32)])

    // MARK: - Episodes

    /// `filter` keys: `podcast` (an id as `x`, or an id or title prefix as
    /// `s`) and `unplayed` (`b`); others are refused.
    public static let listEpisodes = LibraryMethod(
        "ListEpisodes", [DBusArgument("filter", .dictionary(key: .string, value: .variant))] + pageInputs,
        page("episodes", LibraryItems.episodeSummary), reads: true)
    /// The whole list `ListEpisodes` pages through, written into `stream`
    /// (the write end of a pipe or socket the caller made) as frames of
    /// `aa{sv}s`, each a page as `ListEpisodes` answers it, the last with
    /// an empty `next` (`DBusBodyStream`). The reply comes at once; the
    /// frames follow until the end, or until the reader goes or takes
    /// nothing for 30 s. Same filter as `ListEpisodes`.
    public static let streamEpisodes = LibraryMethod(
        "StreamEpisodes", [DBusArgument("filter", .dictionary(key: .string, value: .variant)), DBusArgument("stream", .unixFD)], reads: true)
    /// The signature of each frame `StreamEpisodes` writes.
    public static let streamFrameSignature = "aa{sv}s"

    public static let episode = LibraryMethod("Episode", [DBusArgument("episode", .int64)], [item("episode", LibraryItems.episode)], reads: true)
    /// The loaded episode in full; an empty dictionary when none is.
    public static let currentEpisode = LibraryMethod("CurrentEpisode", [], [item("episode", LibraryItems.episode)], reads: true)
    public static let playEpisode = LibraryMethod("PlayEpisode", [DBusArgument("episode", .int64)], timeout: .seconds(20))
    /// Plays an episode from `seconds` in (a moment found in its transcript, a time someone gave).
    public static let playEpisodeAt = LibraryMethod("PlayEpisodeAt", [DBusArgument("episode", .int64), DBusArgument("seconds", .double)],
                                                    timeout: .seconds(20))
    public static let mark = LibraryMethod("Mark", [DBusArgument("episode", .int64), DBusArgument("played", .bool)])
    /// An episode's transcript, fetched once and kept: timed cues, page by page.
    public static let listTranscript = LibraryMethod(
        "ListTranscript", [DBusArgument("episode", .int64)] + pageInputs, page("cues", LibraryItems.cue), timeout: .seconds(90), reads: true)

    /// The episode's artwork (its own, else its podcast's) as a square PNG
    /// at least `pixels` wide (16 to 1024; rounded up to 64, 128, 256, 512
    /// or 1024; letterboxed), opened for reading: for terminals that show
    /// pictures. Fetched once and rendered once per size.
    public static let artwork = LibraryMethod(
        "Artwork", [DBusArgument("episode", .int64), DBusArgument("pixels", .uint32)], [DBusArgument("png", .unixFD)],
        timeout: .seconds(45), reads: true)

    // MARK: - The queue

    public static let listQueue = LibraryMethod("ListQueue", pageInputs, page("episodes", LibraryItems.episodeSummary), reads: true)
    public static let queueAdd = LibraryMethod("QueueAdd", [DBusArgument("episodes", .array(.int64)), DBusArgument("index", .int32)])
    public static let queueRemove = LibraryMethod("QueueRemove", [DBusArgument("episode", .int64)])
    public static let queueMove = LibraryMethod("QueueMove", [DBusArgument("episode", .int64), DBusArgument("index", .int32)])
    public static let queueClear = LibraryMethod("QueueClear")

    // MARK: - Downloads and the cache

    public static let download = LibraryMethod("Download", [DBusArgument("episode", .int64)])
    public static let deleteDownload = LibraryMethod("DeleteDownload", [DBusArgument("episode", .int64)])
    public static let listDownloads = LibraryMethod("ListDownloads", pageInputs, page("downloads", LibraryItems.download), reads: true)
    public static let storage = LibraryMethod("Storage", [], [item("storage", LibraryItems.storage)], reads: true)
    public static let setCacheBudget = LibraryMethod("SetCacheBudget", [DBusArgument("bytes", .int64)])
    public static let cacheStatus = LibraryMethod("CacheStatus", [], [item("status", LibraryItems.cacheStatus)], reads: true)

    // MARK: - Bookmarks

    /// Bookmarks oldest first: of `episode`, or of every episode for 0.
    /// (`org.pods.Player1.Bookmark` takes one.)
    public static let listBookmarks = LibraryMethod(
        "ListBookmarks", [DBusArgument("episode", .int64)] + pageInputs, page("bookmarks", LibraryItems.bookmark), reads: true)
    /// Plays the bookmark's episode from 5 s before its moment, leaving the
    /// episode's resume position, played mark and queue place as they were.
    public static let playBookmark = LibraryMethod("PlayBookmark", [DBusArgument("bookmark", .int64)], timeout: .seconds(20))
    public static let deleteBookmark = LibraryMethod("DeleteBookmark", [DBusArgument("bookmark", .int64)])

    // MARK: - Playlists

    /// Every playlist, by name (at most 1,000).
    public static let listPlaylists = LibraryMethod("ListPlaylists", pageInputs, page("playlists", LibraryItems.playlist), reads: true)
    /// A playlist of `rules` (keys as the playlist item's `rules`; every one
    /// may be left out), or with `manual` true a list kept by hand.
    public static let createPlaylist = LibraryMethod(
        "CreatePlaylist", [DBusArgument("name", .string), DBusArgument("rules", .dictionary(key: .string, value: .variant))],
        [item("playlist", LibraryItems.playlist)])
    /// `playlist`: an id or a name, here and below.
    public static let deletePlaylist = LibraryMethod("DeletePlaylist", [DBusArgument("playlist", .string)])
    /// The playlist's episodes in its order (`queue`: the queue's).
    public static let listPlaylistEpisodes = LibraryMethod(
        "ListPlaylistEpisodes", [DBusArgument("playlist", .string)] + pageInputs, page("episodes", LibraryItems.episodeSummary),
        reads: true)
    public static let playlistAdd = LibraryMethod(
        "PlaylistAdd", [DBusArgument("playlist", .string), DBusArgument("episodes", .array(.int64)), DBusArgument("index", .int32)])
    public static let playlistRemove = LibraryMethod("PlaylistRemove", [DBusArgument("playlist", .string), DBusArgument("episode", .int64)])
    /// Plays the playlist (`queue`: the queue) from its first episode; it is
    /// what plays next from then on (MPRIS `ActivatePlaylist` does the same).
    public static let playPlaylist = LibraryMethod("PlayPlaylist", [DBusArgument("playlist", .string)], timeout: .seconds(20))

    // MARK: - The listening log

    /// Seconds heard and saved since `since` (Unix seconds; 0: ever).
    public static let listeningStats = LibraryMethod(
        "ListeningStats", [DBusArgument("since", .int64)], [item("stats", LibraryItems.listeningStats)], reads: true)
    /// Every stretch of listening since `since`, oldest first.
    public static let listPlaySessions = LibraryMethod(
        "ListPlaySessions", [DBusArgument("since", .int64)] + pageInputs, page("sessions", LibraryItems.playSession), reads: true)

    // MARK: - Sync

    /// Checks the login with the server at once and keeps the password
    /// (Secret Service, else a 0600 file); `api` is `gpodder` or
    /// `nextcloud`; an empty `device` is `pods-HOSTNAME`.
    public static let setupSync = LibraryMethod(
        "SetupSync", [DBusArgument("server", .string), DBusArgument("user", .string), DBusArgument("device", .string),
                      DBusArgument("api", .string), DBusArgument("password", .string)], [item("status", LibraryItems.syncStatus)],
        timeout: .seconds(150))
    /// Syncs now; `full` reads the server from the start. A failed sync is a result with `error`, not a D-Bus error.
    public static let sync = LibraryMethod("Sync", [DBusArgument("full", .bool)], [item("result", LibraryItems.syncResult)],
                                             timeout: .seconds(900))
    public static let syncStatus = LibraryMethod("SyncStatus", [], [item("status", LibraryItems.syncStatus)], reads: true)
    /// Syncing off: the password is forgotten; what is queued stays for a later setup.
    public static let stopSync = LibraryMethod("StopSync")

    // MARK: - Connections

    /// The unique bus name of podsd's second connection, which serves this
    /// same interface: a client paging through a long list calls there, so
    /// its pages never queue ahead of MPRIS answers in podsd's socket to the
    /// bus (the name podsd owns is on the first).
    public static let listingPeer = LibraryMethod("ListingPeer", [], [DBusArgument("name", .string)], reads: true)

    /// Every method, in introspection order.
    public static let all: [LibraryMethod] = [
        subscribe, subscribeWithCredentials, unsubscribe, podcast, listPodcasts, refresh, importOPML, search, find, setAutoDownload,
        listEpisodes, streamEpisodes, episode, currentEpisode, playEpisode, playEpisodeAt, mark, listTranscript, artwork,
        listQueue, queueAdd, queueRemove, queueMove, queueClear,
        download, deleteDownload, listDownloads, storage, setCacheBudget, cacheStatus,
        listBookmarks, playBookmark, deleteBookmark, listPlaylists, createPlaylist, deletePlaylist, listPlaylistEpisodes, playlistAdd,
        playlistRemove, playPlaylist, listeningStats, listPlaySessions,
        setupSync, sync, syncStatus, stopSync, listingPeer,
    ]

    /// `s cursor` (`""` for the first page) and `u limit` (0: the default; capped).
    private static let pageInputs = [DBusArgument("cursor", .string), DBusArgument("limit", .uint32)]
}

// MARK: - Argument shapes

extension InterfaceMethod {
    /// `aa{sv}` items and `s next`, the cursor of the following page (`""` after the last).
    static func page(_ name: String, _ schema: ItemSchema) -> [DBusArgument] {
        [items(name, schema), DBusArgument("next", .string)]
    }

    static func items(_ name: String, _ schema: ItemSchema) -> DBusArgument {
        DBusArgument(name, .array(LibraryItems.variantDictionary), annotations: [ItemSchema.annotation: schema.keySummary])
    }

    static func item(_ name: String, _ schema: ItemSchema) -> DBusArgument {
        DBusArgument(name, LibraryItems.variantDictionary, annotations: [ItemSchema.annotation: schema.keySummary])
    }
}

/// The library interface's signals; they carry ids, never payloads.
public enum LibrarySignal {
    public static let podcastsChanged = DBusSignalDescription("PodcastsChanged")
    public static let episodesChanged = DBusSignalDescription("EpisodesChanged", arguments: [DBusArgument("podcast", .int64)])
    public static let episodeStatusChanged = DBusSignalDescription(
        "EpisodeStatusChanged", arguments: [DBusArgument("episode", .int64)])
    public static let queueChanged = DBusSignalDescription("QueueChanged")
    /// A playlist was made, changed or deleted, or another was activated (what each holds follows the episodes' signals).
    public static let playlistsChanged = DBusSignalDescription("PlaylistsChanged")
    /// (done, total) feeds of a refresh or an OPML import under way.
    public static let refreshProgress = DBusSignalDescription(
        "RefreshProgress", arguments: [DBusArgument("done", .uint32), DBusArgument("total", .uint32)])
    public static let downloadsChanged = DBusSignalDescription("DownloadsChanged", arguments: [DBusArgument("episode", .int64)])

    /// A bookmark was taken, edited or deleted (by any client, or a key anywhere).
    public static let bookmarksChanged = DBusSignalDescription("BookmarksChanged")
    /// A podcast's own settings changed (`pods config --podcast`): read its settings again.
    public static let podcastSettingsChanged = DBusSignalDescription("PodcastSettingsChanged")

    public static let all = [podcastsChanged, episodesChanged, episodeStatusChanged, queueChanged, playlistsChanged, refreshProgress,
                             downloadsChanged, bookmarksChanged, podcastSettingsChanged]
}

extension ItemSchema {
    /// The introspection annotation that lists an argument's item keys.
    public static let annotation = "org.pods.ItemKeys"
}
