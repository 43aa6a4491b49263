import GRDB
import Synchronization

/// Watches the library's writer and posts what each commit changed to the
/// library's `LibraryChangeFeed`, so no writer of these has to say it and
/// none can forget: a row of `podcast`; the queue; an episode's played mark,
/// currently-playing flag or sync change; the playlists; the bookmarks; a
/// podcast's own settings.
///
/// A progress save (position, last played) is no change: it comes every
/// second while playing, and the player announces its position itself.
/// A feed's episodes (added, rewritten or dropped) are announced by the two
/// writes that merge a feed, `subscribe` and `applyRefresh`, once per feed:
/// watched here, every one of a 53,000-episode import's rows cost a call on
/// the writer (GRDB's update hook runs per row of an observed statement),
/// and the import took 40% longer.
final class LibraryChangeObserver: TransactionObserver, Sendable {
    /// The episode columns whose change is its status: its played mark, whether it
    /// is loaded, and a change the sync made or will send (a remote position, a pause's listening record).
    static let statusColumns: Set<String> = ["completed", "currentlyPlaying", "changedAt"]

    private struct Pending {
        var podcasts = false
        var queue = false
        var playlists = false
        var bookmarks = false
        var podcastSettings = false
        var downloads = false
        var status = Set<Int64>()
    }

    private let feed: LibraryChangeFeed
    private let pending = Mutex(Pending())

    private init(feed: LibraryChangeFeed) { self.feed = feed }

    /// Installs the observer on `writer` for the life of the database.
    static func install(on writer: some DatabaseWriter, posting feed: LibraryChangeFeed) {
        writer.add(transactionObserver: LibraryChangeObserver(feed: feed), extent: .databaseLifetime)
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        switch eventKind {
        case .update("episode", let columns): !columns.isDisjoint(with: Self.statusColumns)
        case .update("cachedMedia", let columns): columns.contains("complete")
        default: ["podcast", "queueItem", "playlist", "playlistItem", "playlistActive", "cachedMedia", "bookmark", "podcastSetting"].contains(eventKind.tableName)
        }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        pending.withLock { pending in
            switch event.tableName {
            case "podcast": pending.podcasts = true
            case "queueItem": pending.queue = true
            case "playlist", "playlistItem", "playlistActive": pending.playlists = true
            case "bookmark": pending.bookmarks = true
            case "podcastSetting": pending.podcastSettings = true
            case "cachedMedia": pending.downloads = true  // for playlists of downloads' counts (the session announces downloads)
            default: pending.status.insert(event.rowID)  // only status updates of episodes are observed
            }
        }
    }

    /// Posts what the commit changed. Many statuses at once (a sync) are
    /// their podcasts' episodes changing, read on the writer in the commit's wake.
    func databaseDidCommit(_ db: Database) {
        let taken = pending.withLock { pending in
            defer { pending = Pending() }
            return pending
        }
        if taken.downloads { feed.downloadsWritten() }
        var changes = LibraryChanges(podcasts: taken.podcasts, queue: taken.queue, playlists: taken.playlists,
                                     bookmarks: taken.bookmarks, podcastSettings: taken.podcastSettings)
        if taken.status.count > LibraryChanges.idLimit {
            changes.episodes = Self.podcasts(of: taken.status, db)
        } else {
            changes.status = .init(taken.status)
        }
        feed.post(changes)
    }

    func databaseDidRollback(_ db: Database) { pending.withLock { $0 = Pending() } }

    private static func podcasts(of episodes: Set<Int64>, _ db: Database) -> LibraryChanges.IDSet {
        var podcasts = Set<Int64>()
        for chunk in Array(episodes).chunked(500) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            guard let ids = try? Int64.fetchAll(db, sql: "SELECT DISTINCT podcastId FROM episode WHERE id IN (\(marks))",
                                                arguments: StatementArguments(Array(chunk))) else { return .everything }
            podcasts.formUnion(ids)
        }
        return .init(podcasts)
    }
}
