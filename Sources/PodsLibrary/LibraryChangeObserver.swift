import GRDB
import Synchronization

/// Watches the library's writer and posts what each commit changed to the
/// library's `LibraryChangeFeed`, so no writer has to say it and none can
/// forget: a row of `podcast`; an episode's row added or rewritten (by
/// podcast); its played mark or currently-playing flag; the queue.
///
/// A progress save (position, last played) is no change: it comes every
/// second while playing, and the player announces its position itself.
/// Episodes a refresh deletes are posted by the refresh (the rows are gone
/// before the commit, with the podcast they belonged to).
final class LibraryChangeObserver: TransactionObserver, Sendable {
    /// What one role of the observer sees: GRDB tells an observer of a
    /// row's change, not which of its filters the statement matched, so
    /// each kind is an observer of its own over the one collector.
    enum Role: Sendable { case podcasts, episodeRows, status, queue }

    /// The columns whose change is the episode's status: its played mark, whether it is loaded, and a
    /// change the sync made or will send (a remote position, a pause's listening record).
    static let statusColumns: Set<String> = ["completed", "currentlyPlaying", "changedAt"]
    /// Episode columns that are the listener's or the sync's bookkeeping, not the feed's content.
    static let bookkeepingColumns: Set<String> = statusColumns.union(["position", "lastPlayedAt", "changedAt", "itemHash"])

    private let role: Role
    private let collector: Collector

    private init(_ role: Role, _ collector: Collector) {
        self.role = role
        self.collector = collector
    }

    /// Installs the observers on `writer` for the life of the database.
    static func install(on writer: some DatabaseWriter, posting feed: LibraryChangeFeed) {
        let collector = Collector(feed: feed)
        for role in [Role.podcasts, .episodeRows, .status, .queue] {
            writer.add(transactionObserver: LibraryChangeObserver(role, collector), extent: .databaseLifetime)
        }
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        switch (role, eventKind) {
        case (.podcasts, _): eventKind.tableName == "podcast"
        case (.queue, _): eventKind.tableName == "queueItem"
        case (.episodeRows, .insert(let table)): table == "episode"
        case (.episodeRows, .update(let table, let columns)): table == "episode" && !columns.isSubset(of: Self.bookkeepingColumns)
        case (.status, .update(let table, let columns)): table == "episode" && !columns.isDisjoint(with: Self.statusColumns)
        default: false
        }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        collector.record(role, event.rowID)
    }

    func databaseDidCommit(_ db: Database) { collector.commit(db) }
    func databaseDidRollback(_ db: Database) { collector.discard() }

    /// What the transaction under way changed, shared by the roles; the
    /// first role told of the commit posts it.
    final class Collector: Sendable {
        private struct Pending {
            var podcasts = false
            var queue = false
            var episodeRows = Set<Int64>()
            var status = Set<Int64>()
        }

        private let feed: LibraryChangeFeed
        private let pending = Mutex(Pending())

        init(feed: LibraryChangeFeed) { self.feed = feed }

        func record(_ role: Role, _ rowID: Int64) {
            pending.withLock { pending in
                switch role {
                case .podcasts: pending.podcasts = true
                case .queue: pending.queue = true
                case .episodeRows: pending.episodeRows.insert(rowID)
                case .status: pending.status.insert(rowID)
                }
            }
        }

        func discard() { pending.withLock { $0 = Pending() } }

        /// Posts what the commit changed; episodes are named by podcast,
        /// read on the writer (in the commit's wake, before the next write).
        func commit(_ db: Database) {
            let taken = pending.withLock { pending in
                defer { pending = Pending() }
                return pending
            }
            var changes = LibraryChanges(podcasts: taken.podcasts, queue: taken.queue)
            // Many statuses at once (a sync) are the podcasts' episodes changing.
            let rewritten = taken.status.count > LibraryChanges.idLimit ? taken.episodeRows.union(taken.status) : taken.episodeRows
            if taken.status.count <= LibraryChanges.idLimit { changes.status = .init(taken.status) }
            if !rewritten.isEmpty { changes.episodes = podcasts(of: rewritten, db) }
            feed.post(changes)
        }

        private func podcasts(of episodes: Set<Int64>, _ db: Database) -> LibraryChanges.IDSet {
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
}
