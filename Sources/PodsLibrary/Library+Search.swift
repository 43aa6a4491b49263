import Foundation
import GRDB

/// A moment `pods find` found: where in which episode, and the words around it.
public struct SearchHit: Sendable, Equatable {
    public var episodeId: Int64
    public var episodeTitle: String
    public var podcastTitle: String
    /// `title`, `notes`, `chapter` or `transcript`.
    public var kind: String
    /// Seconds into the episode (a chapter's start, a transcript line's); nil for a title or notes.
    public var at: Double?
    /// The words around the match, the matched ones in `[` `]`.
    public var snippet: String
}

/// Search across everything heard and held: an SQLite FTS5 index over
/// episode titles, show notes, chapter titles (the feed's, the audio
/// file's, a chapters file's) and transcript lines.
///
/// The texts are kept in `searchEntry` (one row each, by episode) and the
/// index is FTS5's over it (external content). A write to a table the
/// texts come from only marks its episode stale (a trigger: no code that
/// writes an episode, a chapter list or a transcript has to remember the
/// index, and a refresh waits for none of it); `indexSearchText` indexes
/// stale episodes later, a batch at a time, and a search does first. Words are matched whole, without regard to case or accents
/// (`unicode61 remove_diacritics 2`), the last also as a prefix.
extension Library {
    /// Hits returned at most.
    public static let searchLimitRange = 1...200
    /// A query's first this many characters are read, its first `searchTermsLimit` words.
    public static let searchQueryLimit = 200
    static let searchTermsLimit = 12

    static func createSearchIndex(_ db: Database) throws {
        // Marks an episode that is still there, once. (No INSERT OR IGNORE: a trigger takes the
        // conflict rule of the statement that fired it, and a plain DELETE's is to abort.)
        func mark(_ episode: String) -> String {
            "INSERT INTO searchStale SELECT \(episode) WHERE NOT EXISTS (SELECT 1 FROM searchStale WHERE episodeId = \(episode)) "
                + "AND EXISTS (SELECT 1 FROM episode WHERE id = \(episode));"
        }
        try db.execute(sql: """
            CREATE TABLE searchEntry (
                id INTEGER PRIMARY KEY AUTOINCREMENT, episodeId INTEGER NOT NULL, kind TEXT NOT NULL, at DOUBLE, text TEXT NOT NULL);
            CREATE INDEX searchEntry_episode ON searchEntry(episodeId);
            CREATE VIRTUAL TABLE searchText USING fts5(
                text, content = 'searchEntry', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
            CREATE TRIGGER searchEntry_removed AFTER DELETE ON searchEntry BEGIN
                INSERT INTO searchText (searchText, rowid, text) VALUES ('delete', old.id, old.text);
            END;
            -- Episodes whose texts changed since they were indexed: a write only marks its episode here
            -- (one small row), and `indexSearchText` does the rest later.
            CREATE TABLE searchStale (episodeId INTEGER PRIMARY KEY);
            CREATE TRIGGER search_episode_added AFTER INSERT ON episode BEGIN
                \(mark("new.id"))
            END;
            CREATE TRIGGER search_episode_renamed AFTER UPDATE OF title ON episode WHEN new.title IS NOT old.title BEGIN
                \(mark("new.id"))
            END;
            CREATE TRIGGER search_episode_removed AFTER DELETE ON episode BEGIN
                DELETE FROM searchEntry WHERE episodeId = old.id;
                DELETE FROM searchStale WHERE episodeId = old.id;
            END;
            INSERT INTO searchStale SELECT id FROM episode;
            """)
        for table in ["episodeDetail", "chapterList", "transcript"] {
            for event in ["INSERT", "UPDATE", "DELETE"] where !(table == "episodeDetail" && event == "DELETE") {
                let row = event == "DELETE" ? "old" : "new"
                try db.execute(sql: """
                    CREATE TRIGGER search_\(table)_\(event.lowercased()) AFTER \(event) ON \(table) BEGIN
                        \(mark("\(row).episodeId"))
                    END;
                    """)
            }
        }
    }

    /// Marks the episodes whose rows a feed's merge wrote (new, or their
    /// texts changed) for indexing, in one statement. Migration v18 marked
    /// them by triggers on `episode` and `episodeDetail`, one lookup and
    /// insert per row fired inside the merge: importing 200 feeds (53,000
    /// episodes) took a second longer (docs/benchmarks.md, "Search");
    /// v19 dropped those triggers, and the merge, the only writer of those
    /// rows, marks them here. Chapters, transcripts and renames keep theirs.
    static func markSearchStale(_ episodes: [Int64], _ db: Database) throws {
        guard !episodes.isEmpty else { return }
        try db.execute(sql: "INSERT OR IGNORE INTO searchStale SELECT value FROM json_each(?)",
                       arguments: ["[" + episodes.map(String.init).joined(separator: ",") + "]"])
    }

    /// v19: the merge marks what it writes (`markSearchStale`).
    static func dropMergeTriggers(_ db: Database) throws {
        try db.execute(sql: """
            DROP TRIGGER search_episode_added;
            DROP TRIGGER search_episodeDetail_insert;
            DROP TRIGGER search_episodeDetail_update;
            """)
    }

    /// Builds the index anew from what the library holds (docs/benchmarks.md
    /// has its time on a large library).
    public func rebuildSearchIndex() throws(LibraryError) {
        try writing { db in
            try db.execute(sql: """
                DELETE FROM searchEntry;
                INSERT INTO searchText (searchText) VALUES ('delete-all');
                INSERT INTO searchStale SELECT id FROM episode WHERE id NOT IN (SELECT episodeId FROM searchStale);
                """)
        }
        while try indexSearchText() > 0 {}
    }

    /// Episodes whose texts changed since they were indexed.
    public func unindexedSearchText() throws(LibraryError) -> Int {
        try reading { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM searchStale") ?? 0 }
    }

    /// Indexes the texts of up to `batch` episodes that changed since they
    /// were indexed, in one write: their title, show notes, chapter titles
    /// (the feed's, the audio file's, a chapters file's) and transcript
    /// lines, each with where it is heard. How many episodes it indexed.
    @discardableResult
    public func indexSearchText(batch: Int = 50) throws(LibraryError) -> Int {
        try writing { db in
            let stale = try Int64.fetchAll(db, sql: "SELECT episodeId FROM searchStale LIMIT ?", arguments: [max(batch, 1)])
            guard !stale.isEmpty else { return 0 }
            let ids = stale.map(String.init).joined(separator: ",")
            let from = try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) FROM searchEntry") ?? 0
            // A start that is no number (a hostile file's "12" or {}) is none; JSON that is not (a
            // transcript a reader failed on keeps its error where the cues go) holds nothing.
            let start = "(CASE WHEN json_type(value, '$.start') IN ('integer', 'real') THEN value ->> 'start' END)"
            func each(_ column: String) -> String { "json_each(CASE WHEN json_valid(\(column)) THEN \(column) ELSE '[]' END)" }
            try db.execute(sql: """
                DELETE FROM searchEntry WHERE episodeId IN (\(ids));
                INSERT INTO searchEntry (episodeId, kind, text) SELECT id, 'title', title FROM episode WHERE id IN (\(ids));
                INSERT INTO searchEntry (episodeId, kind, text)
                    SELECT episodeId, 'notes', description FROM episodeDetail WHERE episodeId IN (\(ids)) AND description != '';
                INSERT INTO searchEntry (episodeId, kind, at, text)
                    SELECT episodeId, 'chapter', \(start), value ->> 'title' FROM episodeDetail, \(each("chapters"))
                    WHERE episodeId IN (\(ids)) AND coalesce(value ->> 'title', '') != '';
                INSERT INTO searchEntry (episodeId, kind, at, text)
                    SELECT episodeId, 'chapter', \(start), value ->> 'title' FROM chapterList, \(each("chapters"))
                    WHERE episodeId IN (\(ids)) AND coalesce(value ->> 'title', '') != '';
                INSERT INTO searchEntry (episodeId, kind, at, text)
                    SELECT episodeId, 'transcript', \(start), value ->> 'text' FROM transcript, \(each("cues"))
                    WHERE episodeId IN (\(ids)) AND coalesce(value ->> 'text', '') != '';
                """)
            try db.execute(sql: "INSERT INTO searchText (rowid, text) SELECT id, text FROM searchEntry WHERE id > ?", arguments: [from])
            try db.execute(sql: "DELETE FROM searchStale WHERE episodeId IN (\(ids))")
            return stale.count
        }
    }

    /// The FTS5 query for what a listener typed: each word quoted (so no
    /// word is read as FTS5's syntax), all of them required, the last also
    /// as a prefix; nil when nothing searchable is left.
    static func searchQuery(_ text: String) -> String? {
        let words = text.prefix(searchQueryLimit)
            .split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "'" })
            .prefix(searchTermsLimit)
            .map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        guard let last = words.last else { return nil }
        return (words.dropLast() + [last + "*"]).joined(separator: " ")
    }

    /// Matches ranked at most: the newest this many (FTS5 reads its index
    /// backwards, newest first, and stops there). A rare word's matches are
    /// all ranked; a word in nearly every text ("the") is ranked among the
    /// newest texts that have it instead of among all of them, which keeps
    /// every query's time bounded however large the library grows.
    public static let searchCandidates = 4000
    /// Batches a search indexes first at most (a large import's backlog is the indexer's).
    static let searchCatchUp = 5

    /// The best hits for `text` (FTS5's bm25 among the newest
    /// `searchCandidates` matches), at most `limit` (clamped to
    /// `searchLimitRange`), at most three from one episode.
    public func search(_ text: String, limit: Int = 20) throws(LibraryError) -> [SearchHit] {
        guard let query = Self.searchQuery(text) else { return [] }
        let limit = min(max(limit, Self.searchLimitRange.lowerBound), Self.searchLimitRange.upperBound)
        // What was written a moment ago is found too: a few batches are indexed first if they wait.
        for _ in 0..<Self.searchCatchUp where try unindexedSearchText() > 0 {
            try indexSearchText()
        }
        return try reading { db in
            // Ranked: the best of the newest candidates, at most three from one episode.
            let ranked = try Row.fetchAll(db, sql: """
                WITH candidate AS (
                    SELECT rowid AS id, bm25(searchText) AS score FROM searchText WHERE searchText MATCH ?
                    ORDER BY rowid DESC LIMIT ?)
                SELECT candidate.id, s.episodeId FROM candidate JOIN searchEntry s ON s.id = candidate.id
                ORDER BY candidate.score
                """, arguments: [query, Self.searchCandidates])
            var perEpisode: [Int64: Int] = [:]
            var chosen: [Int64] = []
            for row in ranked where chosen.count < limit {
                let episode: Int64 = row["episodeId"]
                perEpisode[episode, default: 0] += 1
                if perEpisode[episode, default: 0] <= 3 { chosen.append(row["id"]) }
            }
            guard !chosen.isEmpty else { return [] }
            // Their words around the match, and where they are.
            let rows = try Row.fetchAll(db, sql: """
                SELECT searchText.rowid AS id, snippet(searchText, 0, '[', ']', '…', 12) AS snippet,
                    s.episodeId, e.title, p.title AS podcastTitle, s.kind, s.at
                FROM searchText JOIN searchEntry s ON s.id = searchText.rowid
                    JOIN episode e ON e.id = s.episodeId JOIN podcast p ON p.id = e.podcastId
                WHERE searchText MATCH ? AND searchText.rowid IN (\(chosen.map(String.init).joined(separator: ",")))
                """, arguments: [query])
            var byID: [Int64: SearchHit] = [:]
            for row in rows {
                let at: Double? = row["at"]
                byID[row["id"]] = SearchHit(episodeId: row["episodeId"], episodeTitle: row["title"], podcastTitle: row["podcastTitle"],
                                            kind: row["kind"], at: at.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }, snippet: row["snippet"])
            }
            return chosen.compactMap { byID[$0] }
        }
    }
}
