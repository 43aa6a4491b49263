import Glibc
import PodsDBus
import PodsFeedParser
import PodsProtocol

/// Drives podsd's library interface (`org.pods.Library2`): what `pods`
/// uses for subscriptions, episodes and the queue. Items come back as typed
/// `a{sv}` values (keys in `LibraryItems`); lists are read page by page.
public struct LibraryClient: Sendable {
    /// The player interface on the same connection.
    public let player: PlayerClient

    public init(_ player: PlayerClient) { self.player = player }

    // MARK: - Podcasts

    /// The new subscription.
    public func subscribe(_ url: String) async throws(PlayerClient.Failure) -> DBusValue {
        try await single(.subscribe, [.string(url)])
    }

    /// A private feed: podsd keeps the user name and password apart from the URL.
    public func subscribe(_ url: String, user: String, password: String) async throws(PlayerClient.Failure) -> DBusValue {
        try await single(.subscribeWithCredentials, [.string(url), .string(user), .string(password)])
    }

    public func unsubscribe(_ podcast: String) async throws(PlayerClient.Failure) {
        _ = try await call(.unsubscribe, [.string(podcast)])
    }

    /// Every subscription, newest first, a page at a time.
    public func podcasts(_ page: ([DBusValue]) throws(PlayerClient.Failure) -> Void) async throws(PlayerClient.Failure) {
        try await pages(.listPodcasts, [], limit: nil, page)
    }

    /// One result per podcast.
    public func refresh(podcast: String?) async throws(PlayerClient.Failure) -> [DBusValue] {
        try await single(.refresh, [.string(podcast ?? "")]).arrayValue ?? []
    }

    /// One result per outline, in the file's order.
    /// The subscriptions as an OPML 2.0 document, oldest first (`pods export`, the window's Export).
    public func opmlDocument() async throws(PlayerClient.Failure) -> String {
        var outlines: [OPML.Outline] = []
        try await podcasts { page in
            outlines += page.map { podcast in
                let fields = Items.fields(podcast)
                return OPML.Outline(title: fields["title"]?.stringValue ?? "", feedURL: fields["feedURL"]?.stringValue ?? "",
                                    link: fields["link"]?.stringValue)
            }
        }
        return OPML.document(outlines.reversed())
    }

    public func importOPML(_ text: String) async throws(PlayerClient.Failure) -> [DBusValue] {
        try await single(.importOPML, [.string(text)]).arrayValue ?? []
    }

    /// Podcasts the directories know for `term`, best first.
    public func search(_ term: String, limit: Int) async throws(PlayerClient.Failure) -> [DBusValue] {
        try await single(.search, [.string(term), .uint32(UInt32(clamping: limit))]).arrayValue ?? []
    }

    /// The library's own text (titles, show notes, chapters, transcripts): the best hits for `text`.
    public func find(_ text: String, limit: Int) async throws(PlayerClient.Failure) -> [DBusValue] {
        try await single(.find, [.string(text), .uint32(UInt32(clamping: limit))]).arrayValue ?? []
    }

    /// Downloads the `count` newest unplayed episodes of `podcast` after each refresh (0: none).
    public func setAutoDownload(podcast: String, count: Int) async throws(PlayerClient.Failure) {
        _ = try await call(.setAutoDownload, [.string(podcast), .uint32(UInt32(clamping: count))])
    }

    /// (done, total) feeds from every refresh or import podsd runs, as it goes.
    public func refreshProgress() async -> AsyncStream<(done: Int, total: Int)> {
        await signals(LibrarySignal.refreshProgress) { arguments in
            guard let done = arguments.first?.int64Value, let total = arguments.last?.int64Value else { return nil }
            return (Int(done), Int(total))
        }
    }

    // MARK: - Episodes

    /// Episodes newest first, a page at a time: a podcast's (an id or title
    /// prefix; every podcast's when nil), at most `limit` in all. `order`:
    /// `newest` or `oldest`; nil, a serial podcast's own list is oldest first.
    public func episodes(podcast: String?, unplayedOnly: Bool, order: String? = nil, limit: Int?,
                         _ page: ([DBusValue]) throws(PlayerClient.Failure) -> Void) async throws(PlayerClient.Failure) {
        let filter = Self.episodeFilter(podcast, unplayedOnly, order)
        guard limit == nil, player.connection.canPassFileDescriptors else {
            return try await pages(.listEpisodes, [filter], limit: limit, page)
        }
        try await streamedEpisodes(filter) { (streamed) throws(PlayerClient.Failure) in
            var reader = streamed.body.reader()
            guard let items = (try? reader.value(of: .array(.dictionary(key: .string, value: .variant))))?.arrayValue else {
                throw PlayerClient.Failure("podsd sent a malformed page of \(LibraryMethod.streamEpisodes.name)")
            }
            try page(items)
        }
    }

    /// One page of episodes, newest first, from `cursor` (`LibraryPaging.start`
    /// for the first): its items and the next page's cursor (`start` again
    /// after the last). For a client that reads on only as its listener
    /// scrolls (`pods ui`).
    /// `peer`: where podsd serves listings (`listingConnection()`), asked once by a client that reads many pages.
    public func episodePage(podcast: Int64?, after cursor: String, count: Int, at peer: String?) async throws(PlayerClient.Failure)
        -> (items: [DBusValue], next: String) {
        let filter = Self.episodeFilter(podcast.map(String.init), false, nil)
        let reply = try await player.call(
            path: LibraryNames.objectPath, interface: LibraryNames.interface, member: LibraryMethod.listEpisodes.name,
            [filter, .string(cursor), .uint32(UInt32(clamping: count))], timeout: LibraryMethod.listEpisodes.timeout,
            at: peer)
        guard reply.count == 2, let items = reply[0].arrayValue, let next = reply[1].stringValue else {
            throw PlayerClient.Failure("podsd sent a malformed page of \(LibraryMethod.listEpisodes.name)")
        }
        return (items, next)
    }

    /// The same pages as they came, for `--json` (`ItemJSON.items(_:)`).
    public func episodePages(podcast: String?, unplayedOnly: Bool, order: String? = nil, limit: Int?,
                             _ page: (ItemPage) throws(PlayerClient.Failure) -> Void) async throws(PlayerClient.Failure) {
        let filter = Self.episodeFilter(podcast, unplayedOnly, order)
        guard limit == nil, player.connection.canPassFileDescriptors else {
            return try await itemPages(.listEpisodes, [filter], limit: limit, depth: Self.episodePagesInFlight, page)
        }
        try await streamedEpisodes(filter, page)
    }

    /// The whole list through `StreamEpisodes`: podsd writes its pages into
    /// a pipe made here, off the bus (`DBusBodyStream`), and the last page
    /// says it is the last. Used when the connection passes file
    /// descriptors and no limit is asked for.
    private func streamedEpisodes(_ filter: DBusValue, _ page: (ItemPage) throws(PlayerClient.Failure) -> Void) async throws(PlayerClient.Failure) {
        let method = LibraryMethod.streamEpisodes
        let readEnd: DBusFileDescriptor
        do {
            // podsd gets a copy of the write end; this one closes when the call is done (the end
            // of this block), so the stream ends when podsd closes its copy.
            let ends: (read: DBusFileDescriptor, write: DBusFileDescriptor)
            do { ends = try DBusFileDescriptor.pipe() } catch { throw PlayerClient.Failure("\(error.message) for the listing") }
            readEnd = ends.read
            _ = try await player.call(path: LibraryNames.objectPath, interface: LibraryNames.interface, member: method.name,
                                      [filter, .unixFD(ends.write)], timeout: method.timeout, at: await listingPeer())
        }
        var reader = DBusBodyStream.Reader(readEnd, signature: LibraryMethod.streamFrameSignature)
        while true {
            let body: DBusReplyBody?
            do { body = try reader.next() } catch { throw PlayerClient.Failure("the episode listing broke off: \(error.message)") }
            guard let body else { throw PlayerClient.Failure("podsd ended the episode listing early (its log says why)") }
            guard let (count, next) = try? ItemPage.countAndNext(body) else {
                throw PlayerClient.Failure("podsd sent a malformed page of \(method.name)")
            }
            try page(ItemPage(body: body, count: count))
            if next == LibraryPaging.start { return }
        }
    }

    private static func episodeFilter(_ podcast: String?, _ unplayedOnly: Bool, _ order: String?) -> DBusValue {
        var filter: [String: DBusValue] = ["podcast": .string(podcast ?? ""), "unplayed": .bool(unplayedOnly)]
        if let order { filter["order"] = .string(order) }
        return .variantDictionary(filter)
    }

    /// One episode in full (description, chapters, people).
    public func episode(_ id: Int64) async throws(PlayerClient.Failure) -> DBusValue {
        try await single(.episode, [.int64(id)])
    }

    /// The episode's artwork as a square PNG `pixels` wide (podsd renders it
    /// once per size); at most `maximumBytes` are read.
    public func artworkPNG(episode id: Int64, pixels: Int, maximumBytes: Int = 8 << 20) async throws(PlayerClient.Failure) -> [UInt8] {
        guard case .unixFD(let file) = try await single(.artwork, [.int64(id), .uint32(UInt32(clamping: pixels))]) else {
            throw PlayerClient.Failure("podsd sent no picture")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var offset: off_t = 0
        while bytes.count <= maximumBytes {
            let count = pread(file.rawValue, &chunk, chunk.count, offset)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk.prefix(count)
            offset += off_t(count)
        }
        guard bytes.count <= maximumBytes else { throw PlayerClient.Failure("the picture is larger than \(maximumBytes) bytes") }
        return bytes
    }

    /// The loaded episode in full; nil when none is.
    public func currentEpisode() async throws(PlayerClient.Failure) -> DBusValue? {
        let item = try await single(.currentEpisode)
        return item.stringKeyedDictionary?.isEmpty == false ? item : nil
    }

    public func play(episode: Int64) async throws(PlayerClient.Failure) {
        _ = try await call(.playEpisode, [.int64(episode)])
    }

    /// Plays `episode` from `seconds` in.
    public func play(episode: Int64, at seconds: Double) async throws(PlayerClient.Failure) {
        _ = try await call(.playEpisodeAt, [.int64(episode), .double(seconds)])
    }

    public func mark(episode: Int64, played: Bool) async throws(PlayerClient.Failure) {
        _ = try await call(.mark, [.int64(episode), .bool(played)])
    }

    /// An episode's transcript, a page of cues at a time (podsd fetches it once).
    public func transcript(episode: Int64, _ page: ([DBusValue]) throws(PlayerClient.Failure) -> Void) async throws(PlayerClient.Failure) {
        try await pages(.listTranscript, [.int64(episode)], limit: nil, page)
    }

    // MARK: - The queue

    /// The queue, next first, a page at a time.
    public func queue(_ page: ([DBusValue]) throws(PlayerClient.Failure) -> Void) async throws(PlayerClient.Failure) {
        try await pages(.listQueue, [], limit: nil, page)
    }

    public func enqueue(_ episodes: [Int64], at index: Int?) async throws(PlayerClient.Failure) {
        _ = try await call(.queueAdd, [.array(.int64, episodes.map { .int64($0) }), .int32(Int32(clamping: index ?? -1))])
    }

    public func dequeue(_ episode: Int64) async throws(PlayerClient.Failure) { _ = try await call(.queueRemove, [.int64(episode)]) }

    public func move(_ episode: Int64, to index: Int) async throws(PlayerClient.Failure) {
        _ = try await call(.queueMove, [.int64(episode), .int32(Int32(clamping: index))])
    }

    public func clearQueue() async throws(PlayerClient.Failure) { _ = try await call(.queueClear) }

    // MARK: - Bookmarks

    /// Bookmarks oldest first (items in `LibraryItems.bookmark`), of `episode` or of every episode.
    public func bookmarks(episode: Int64?, _ page: ([DBusValue]) throws(PlayerClient.Failure) -> Void) async throws(PlayerClient.Failure) {
        try await pages(.listBookmarks, [.int64(episode ?? 0)], limit: nil, page)
    }

    /// Plays from 5 s before the bookmark; the episode's resume position stays.
    public func playBookmark(_ id: Int64) async throws(PlayerClient.Failure) { _ = try await call(.playBookmark, [.int64(id)]) }

    public func deleteBookmark(_ id: Int64) async throws(PlayerClient.Failure) { _ = try await call(.deleteBookmark, [.int64(id)]) }

    // MARK: - Playlists

    /// The podcast `text` names (an id, or a title's start).
    public func podcast(_ text: String) async throws(PlayerClient.Failure) -> DBusValue { try await single(.podcast, [.string(text)]) }

    /// Every playlist, by name.
    public func playlists() async throws(PlayerClient.Failure) -> [DBusValue] {
        var all: [DBusValue] = []
        try await pages(.listPlaylists, [], limit: nil) { all += $0 }
        return all
    }

    /// A playlist of `rules` (`LibraryItems.playlistRules`' keys), or with `["manual": true]` a list kept by hand.
    public func createPlaylist(_ name: String, rules: [String: DBusValue]) async throws(PlayerClient.Failure) -> DBusValue {
        try await single(.createPlaylist, [.string(name), .variantDictionary(rules)])
    }

    public func deletePlaylist(_ playlist: String) async throws(PlayerClient.Failure) { _ = try await call(.deletePlaylist, [.string(playlist)]) }

    /// The playlist's episodes (`queue`: the queue's) in its order, a page at a time (the first `limit`, when given).
    public func playlistEpisodes(_ playlist: String, limit: Int? = nil,
                                 _ page: ([DBusValue]) throws(PlayerClient.Failure) -> Void) async throws(PlayerClient.Failure) {
        try await pages(.listPlaylistEpisodes, [.string(playlist)], limit: limit, page)
    }

    public func addToPlaylist(_ playlist: String, _ episodes: [Int64], at index: Int?) async throws(PlayerClient.Failure) {
        _ = try await call(.playlistAdd, [.string(playlist), .array(.int64, episodes.map { .int64($0) }), .int32(Int32(clamping: index ?? -1))])
    }

    public func removeFromPlaylist(_ playlist: String, _ episode: Int64) async throws(PlayerClient.Failure) {
        _ = try await call(.playlistRemove, [.string(playlist), .int64(episode)])
    }

    /// Plays the playlist (`queue`: the queue) from its first episode; it is what plays next from then on.
    public func playPlaylist(_ playlist: String) async throws(PlayerClient.Failure) { _ = try await call(.playPlaylist, [.string(playlist)]) }

    // MARK: - The listening log

    /// Seconds heard and saved since `since` (Unix seconds; 0: ever), by podcast and by week.
    public func listeningStats(since: Int64) async throws(PlayerClient.Failure) -> DBusValue {
        try await single(.listeningStats, [.int64(since)])
    }

    /// Every stretch of listening since `since` (Unix seconds; 0: ever), oldest first, a page at a time.
    public func playSessions(since: Int64, _ page: ([DBusValue]) throws(PlayerClient.Failure) -> Void) async throws(PlayerClient.Failure) {
        try await pages(.listPlaySessions, [.int64(since)], limit: nil, page)
    }

    // MARK: - Downloads and the cache

    /// Starts downloading an episode's missing bytes; `downloadsChanged` tells when it is done.
    public func download(_ episode: Int64) async throws(PlayerClient.Failure) { _ = try await call(.download, [.int64(episode)]) }

    /// Every cached episode, least recently used first.
    public func downloads() async throws(PlayerClient.Failure) -> [DBusValue] {
        var all: [DBusValue] = []
        try await pages(.listDownloads, [], limit: nil) { all += $0 }
        return all
    }

    public func deleteDownload(_ episode: Int64) async throws(PlayerClient.Failure) {
        _ = try await call(.deleteDownload, [.int64(episode)])
    }

    public func storage() async throws(PlayerClient.Failure) -> DBusValue { try await single(.storage) }

    public func setCacheBudget(_ bytes: Int64) async throws(PlayerClient.Failure) {
        _ = try await call(.setCacheBudget, [.int64(bytes)])
    }

    /// `episodeId`, `buffering` and `cached` for the loaded episode.
    public func cacheStatus() async throws(PlayerClient.Failure) -> DBusValue { try await single(.cacheStatus) }

    /// The episode ids of every `DownloadsChanged` signal from now on.
    public func downloadsChanged() async -> AsyncStream<Int64> {
        await signals(LibrarySignal.downloadsChanged) { $0.first?.int64Value }
    }

    // MARK: - Calls

    /// Reads every page of a paged method, asking for the next page before
    /// handing this one to `page`, so podsd builds one while the caller
    /// prints the other.
    private func pages(_ method: LibraryMethod, _ leading: [DBusValue], limit: Int?,
                       _ page: ([DBusValue]) throws(PlayerClient.Failure) -> Void) async throws(PlayerClient.Failure) {
        let peer = await listingPeer()
        try await pages(method, leading, limit: limit, fetch: { [player] arguments throws(PlayerClient.Failure) in
            let reply = try await player.call(path: LibraryNames.objectPath, interface: LibraryNames.interface, member: method.name,
                                              arguments, timeout: method.timeout, at: peer)
            guard reply.count == 2, let items = reply[0].arrayValue, let next = reply[1].stringValue else {
                throw PlayerClient.Failure("podsd sent a malformed page of \(method.name)")
            }
            return (items, items.count, next)
        }, { (items, count) throws(PlayerClient.Failure) in try page(Array(items.prefix(count))) })
    }

    /// The same, each page handed over as it came over the bus, for a
    /// caller that reads it with a `DBusWireReader` (`ItemPage`).
    private func itemPages(_ method: LibraryMethod, _ leading: [DBusValue], limit: Int?, depth: Int = 1,
                           _ page: (ItemPage) throws(PlayerClient.Failure) -> Void) async throws(PlayerClient.Failure) {
        let peer = await listingPeer()
        try await pages(method, leading, limit: limit, depth: depth, fetch: { [player] arguments throws(PlayerClient.Failure) in
            let body = try await player.callForBody(path: LibraryNames.objectPath, interface: LibraryNames.interface,
                                                    member: method.name, arguments, timeout: method.timeout, at: peer)
            guard body.signature == "aa{sv}s", let (count, next) = try? ItemPage.countAndNext(body) else {
                throw PlayerClient.Failure("podsd sent a malformed page of \(method.name)")
            }
            return (body, count, next)
        }, { (body, count) throws(PlayerClient.Failure) in try page(ItemPage(body: body, count: count)) })
    }

    /// Requests in flight while paging through episodes (`cursor+k`).
    static let episodePagesInFlight = 2

    /// Where podsd serves long listings (`ListingPeer`); nil (its usual
    /// name) when it does not say.
    public func listingConnection() async -> String? { await listingPeer() }

    /// nil too when this client may not reach it: a sandbox's proxy lets it
    /// talk to podsd's names, not to the unique name of its third connection.
    private func listingPeer() async -> String? {
        guard let name = try? await call(.listingPeer).first?.stringValue, !name.isEmpty else { return nil }
        let reachable = try? await player.connection.call(
            destination: name, path: LibraryNames.objectPath, interface: "org.freedesktop.DBus.Peer", member: "Ping", timeout: .seconds(2))
        return reachable == nil ? nil : name
    }

    /// The paging loop: `fetch` asks for one page (its arguments end with
    /// the cursor and size) and says how many items it holds and the next
    /// cursor; `consume` gets each page and how many of its items to use.
    /// With `depth` above 1 (`ListEpisodes`, which takes `cursor+k`), that
    /// many requests are in flight, so the client never waits for a round
    /// trip between pages.
    private func pages<Page: Sendable>(
        _ method: LibraryMethod, _ leading: [DBusValue], limit: Int?, depth: Int = 1,
        fetch: @escaping @Sendable ([DBusValue]) async throws(PlayerClient.Failure) -> (page: Page, count: Int, next: String),
        _ consume: (Page, Int) throws(PlayerClient.Failure) -> Void
    ) async throws(PlayerClient.Failure) {
        var remaining = limit.map { max(0, $0) } ?? Int.max
        guard remaining > 0 else { return }
        // One size for every request, so podsd's pages read ahead are the ones asked for.
        let size = UInt32(clamping: min(remaining, LibraryPaging.maxItems))
        typealias Reply = Result<(page: Page, count: Int, next: String), PlayerClient.Failure>
        func request(_ cursor: String) -> Task<Reply, Never> {
            Task {
                do throws(PlayerClient.Failure) {
                    return .success(try await fetch(leading + [.string(cursor), .uint32(size)]))
                } catch { return .failure(error) }
            }
        }
        var inFlight = (0..<max(1, depth)).map { request(LibraryPaging.ahead(LibraryPaging.start, $0)) }
        defer { for task in inFlight { task.cancel() } }
        while !inFlight.isEmpty {
            let reply = try await inFlight.removeFirst().value.get()
            let used = min(reply.count, remaining)
            remaining -= used
            let more = reply.next != LibraryPaging.start && remaining > 0 && used > 0
            // The page `depth` after this one (its first in flight is the next).
            if more { inFlight.append(request(LibraryPaging.ahead(reply.next, max(1, depth) - 1))) }
            try consume(reply.page, used)
            if !more { return }
        }
    }

    // MARK: - Sync

    /// Checks the login with the server and turns syncing on; the status.
    public func setupSync(server: String, user: String, device: String, api: String,
                          password: String) async throws(PlayerClient.Failure) -> DBusValue {
        try await single(.setupSync, [.string(server), .string(user), .string(device), .string(api), .string(password)])
    }

    /// Syncs now; the result (with `error` when it failed).
    public func sync(full: Bool) async throws(PlayerClient.Failure) -> DBusValue {
        try await single(.sync, [.bool(full)])
    }

    public func syncStatus() async throws(PlayerClient.Failure) -> DBusValue { try await single(.syncStatus) }

    public func stopSync() async throws(PlayerClient.Failure) { _ = try await call(.stopSync) }

    private func single(_ method: LibraryMethod, _ arguments: [DBusValue] = []) async throws(PlayerClient.Failure) -> DBusValue {
        guard let value = try await call(method, arguments).first else {
            throw PlayerClient.Failure("podsd sent no answer to \(method.name)")
        }
        return value
    }

    private func call(_ method: LibraryMethod, _ arguments: [DBusValue] = []) async throws(PlayerClient.Failure) -> [DBusValue] {
        try await player.call(path: LibraryNames.objectPath, interface: LibraryNames.interface, member: method.name, arguments,
                              timeout: method.timeout)
    }

    private func signals<T: Sendable>(_ signal: DBusSignalDescription,
                                      _ read: @escaping @Sendable ([DBusValue]) -> T?) async -> AsyncStream<T> {
        let stream = try? await player.connection.signals(matching: DBusSignalMatch(
            sender: PodsBus.name, path: LibraryNames.objectPath, interface: LibraryNames.interface, member: signal.name))
        return AsyncStream { continuation in
            let task = Task {
                for await received in stream ?? AsyncStream(unfolding: { nil }) {
                    if let value = read(received.arguments) { continuation.yield(value) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
