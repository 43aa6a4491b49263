import Dispatch
import GRDB
import PodsSettings
import Synchronization

/// Which episodes each playlist's title pattern matches, kept in the library
/// (`titleMatch`), so a playlist of a title rule is an indexed query and no
/// pattern runs while it is read, counted or asked what plays next.
///
/// Before, each count, page and next-episode question ran the pattern over
/// every episode's title in SQL (a function per row): 196 title playlists
/// over 50,000 episodes made `ListPlaylists` take 33 s and MPRIS
/// `GetPlaylists` time out (ADVERSARIAL-5, 2; REVIEW-4, N13).
///
/// A pattern is matched against every title once, when its playlist is made
/// (or, for a library from before this, at the first start); after that only
/// against the titles a feed's merge wrote (`titleStale`, marked in the
/// merge's write while some playlist has a title rule, matched after it). The matching runs outside every write,
/// on one lane of its own, never on the player's actor or the MPRIS thread.
extension Library {
    /// v22: the tables, filled for the playlists there are at the first `matchTitles`.
    static func createTitleIndex(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE titleMatch (
                pattern TEXT NOT NULL, episodeId INTEGER NOT NULL REFERENCES episode(id) ON DELETE CASCADE,
                PRIMARY KEY (pattern, episodeId)) WITHOUT ROWID;
            CREATE INDEX titleMatch_episode ON titleMatch(episodeId);
            -- The patterns whose matches are whole, but for the stale titles.
            CREATE TABLE titlePattern (pattern TEXT PRIMARY KEY);
            -- Episodes whose titles were written since they were matched (the merge, their one writer, marks them).
            CREATE TABLE titleStale (episodeId INTEGER PRIMARY KEY REFERENCES episode(id) ON DELETE CASCADE);
            """)
    }

    /// Whether a playlist has a title rule, or had one whose matches are still kept.
    private static let titleRulesExist = """
        SELECT EXISTS (SELECT 1 FROM playlist WHERE rules ->> 'title' IS NOT NULL) OR EXISTS (SELECT 1 FROM titlePattern)
        """

    /// Marks the episodes a feed's merge wrote for matching, in one statement
    /// (in the merge's write), when some playlist has a title rule: a library
    /// without one marks nothing (its import wrote a row per episode for
    /// nothing, and its first title playlist matched them all twice). A
    /// playlist is written before its pattern is first matched, so a merge
    /// in between marks what it wrote.
    static func markTitlesStale(_ episodes: [Int64], _ db: Database) throws {
        guard !episodes.isEmpty, try Bool.fetchOne(db, sql: titleRulesExist) == true else { return }
        try db.execute(sql: "INSERT OR IGNORE INTO titleStale SELECT value FROM json_each(?)", arguments: [jsonArray(episodes)])
    }

    /// Titles matched per batch (one read, then one write).
    static let titleBatch = 2000

    /// Brings the title index up to date now: each playlist's pattern
    /// matched against every title written since, a new pattern against
    /// every title. Returns when done (a run under way is waited for).
    /// podsd need not call it: each merge and each new playlist start it.
    public func matchTitles() throws(LibraryError) {
        try titleIndex.runNow { () throws(LibraryError) in try matchTitlesInBatches() }
    }

    /// Starts `matchTitles` on its lane unless a start is already waiting
    /// there, or no playlist has a title rule and none had (the lane then
    /// leaves the file alone: a library opened for a moment is closed at once).
    func matchTitlesSoon() {
        let wanted = try? reading { db in try Bool.fetchOne(db, sql: Self.titleRulesExist) }
        guard wanted == true else { return }
        titleIndex.runSoon { [self] in try? matchTitlesInBatches() }
    }

    private func matchTitlesInBatches() throws(LibraryError) {
        var changed = false
        let wanted = try reading { db in try Self.titlePatternsInUse(db) }
        let indexed = try reading { db in Set(try String.fetchAll(db, sql: "SELECT pattern FROM titlePattern")) }
        // Patterns no playlist has any more.
        let unused = indexed.subtracting(wanted)
        if !unused.isEmpty {
            try writing { db in
                for pattern in unused {
                    guard try !Self.titlePatternsInUse(db).contains(pattern) else { continue }
                    try db.execute(sql: "DELETE FROM titleMatch WHERE pattern = ?", arguments: [pattern])
                    try db.execute(sql: "DELETE FROM titlePattern WHERE pattern = ?", arguments: [pattern])
                }
            }
        }
        // New patterns, against every title, in pages by id. Titles written meanwhile are stale: matched below.
        for source in wanted.subtracting(indexed).sorted() {
            let matcher = Self.matcher(source)
            var after: Int64 = 0
            while true {
                let page = try reading { db in
                    try Row.fetchAll(db, sql: "SELECT id, title FROM episode WHERE id > ? ORDER BY id LIMIT ?",
                                     arguments: [after, Self.titleBatch]).map { row in (id: row[0] as Int64, title: row[1] as String) }
                }
                guard let last = page.last else { break }
                after = last.id
                let matched = page.filter { matcher($0.title) }.map(\.id)
                if !matched.isEmpty {
                    try writing { db in
                        try db.execute(sql: """
                            INSERT OR IGNORE INTO titleMatch (pattern, episodeId)
                                SELECT ?, value FROM json_each(?) WHERE value IN (SELECT id FROM episode)
                            """, arguments: [source, Self.jsonArray(matched)])
                    }
                }
            }
            try writing { db in try db.execute(sql: "INSERT OR IGNORE INTO titlePattern (pattern) VALUES (?)", arguments: [source]) }
            changed = true
        }
        // Stale titles, against every pattern, a batch at a time; a title written again meanwhile stays stale.
        while true {
            let (patterns, batch) = try reading { db in
                (try String.fetchAll(db, sql: "SELECT pattern FROM titlePattern ORDER BY pattern"),
                 try Row.fetchAll(db, sql: """
                    SELECT titleStale.episodeId, episode.title FROM titleStale JOIN episode ON episode.id = titleStale.episodeId
                    ORDER BY titleStale.episodeId LIMIT ?
                    """, arguments: [Self.titleBatch]).map { row in (id: row[0] as Int64, title: row[1] as String) })
            }
            guard !batch.isEmpty else { break }
            if patterns.isEmpty {
                // Nothing to match them against (a new pattern, made under this lane, matches every title itself).
                try writing { db in
                    if try Int.fetchOne(db, sql: "SELECT count(*) FROM titlePattern") == 0 { try db.execute(sql: "DELETE FROM titleStale") }
                }
                continue
            }
            let matchers = patterns.map { (source: $0, matches: Self.matcher($0)) }
            let matched = batch.map { episode in (episode, matchers.filter { $0.matches(episode.title) }.map(\.source)) }
            try writing { db in
                let title = try db.cachedStatement(sql: "SELECT title FROM episode WHERE id = ?")
                let forget = try db.cachedStatement(sql: "DELETE FROM titleMatch WHERE episodeId = ?")
                let match = try db.cachedStatement(sql: "INSERT INTO titleMatch (pattern, episodeId) VALUES (?, ?)")
                let fresh = try db.cachedStatement(sql: "DELETE FROM titleStale WHERE episodeId = ?")
                for (episode, sources) in matched {
                    guard try String.fetchOne(title, arguments: [episode.id]) == episode.title else { continue }
                    try forget.execute(arguments: [episode.id])
                    for source in sources { try match.execute(arguments: [source, episode.id]) }
                    try fresh.execute(arguments: [episode.id])
                }
            }
            changed = true
        }
        // The counts and the MPRIS entries of title playlists are read again.
        if changed { changes.post(LibraryChanges(playlists: true)) }
    }

    /// The title patterns of the playlists there are.
    private static func titlePatternsInUse(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT DISTINCT rules ->> 'title' FROM playlist WHERE rules ->> 'title' IS NOT NULL"))
    }

    /// A pattern an older Pods kept that this one refuses matches nothing.
    private static func matcher(_ source: String) -> @Sendable (String) -> Bool {
        guard let pattern = try? TitlePattern(source) else { return { _ in false } }
        return pattern.matcher()
    }
}

/// The title index's lane: one run at a time, and at most one more waiting.
final class TitleIndexLane: Sendable {
    private let queue = DispatchQueue(label: "pods.titles", qos: .utility)
    /// A start is waiting on the queue (a second one then adds nothing).
    private let waiting = Mutex(false)
    /// Held by each run, so a run now waits for one under way.
    private let running = Mutex(())

    func runSoon(_ work: @escaping @Sendable () -> Void) {
        let start = waiting.withLock { waiting in
            defer { waiting = true }
            return !waiting
        }
        guard start else { return }
        queue.async { [self] in
            waiting.withLock { $0 = false }
            running.withLock { _ in work() }
        }
    }

    func runNow(_ work: () throws(LibraryError) -> Void) throws(LibraryError) {
        try running.withLock { _ throws(LibraryError) in try work() }
    }
}
