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
/// index is FTS5's over it (external content); triggers on the tables the
/// texts come from keep both in step with every write, so no code that
/// writes an episode, a chapter list or a transcript has to remember the
/// index. Words are matched whole, without regard to case or accents
/// (`unicode61 remove_diacritics 2`), the last also as a prefix.
extension Library {
    /// Hits returned at most.
    public static let searchLimitRange = 1...200
    /// A query's first this many characters are read, its first `searchTermsLimit` words.
    public static let searchQueryLimit = 200
    static let searchTermsLimit = 12

    static func createSearchIndex(_ db: Database) throws {
        // Each text's row; `at` is seconds into the episode where the text is heard.
        // Valid JSON only: a transcript a reader failed on keeps its error in `cues`.
        let spoken = "json_each(CASE WHEN json_valid(new.cues) THEN new.cues ELSE '[]' END)"
        let chapters = "json_each(CASE WHEN json_valid(new.chapters) THEN new.chapters ELSE '[]' END)"
        // A start that is no number (a hostile file's "12" or {}) is none.
        let start = "(CASE WHEN json_type(value, '$.start') IN ('integer', 'real') THEN value ->> 'start' END)"
        try db.execute(sql: """
            CREATE TABLE searchEntry (
                id INTEGER PRIMARY KEY AUTOINCREMENT, episodeId INTEGER NOT NULL, kind TEXT NOT NULL, source TEXT NOT NULL,
                at DOUBLE, text TEXT NOT NULL);
            CREATE INDEX searchEntry_episode ON searchEntry(episodeId, kind, source);
            CREATE VIRTUAL TABLE searchText USING fts5(
                text, content = 'searchEntry', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
            -- Entries up to this id are in searchText; the rest wait for `indexSearchText` (ids only grow).
            CREATE TABLE searchProgress (indexedUpTo INTEGER NOT NULL);
            INSERT INTO searchProgress VALUES (0);
            CREATE TRIGGER searchEntry_removed AFTER DELETE ON searchEntry
                WHEN old.id <= (SELECT indexedUpTo FROM searchProgress) BEGIN
                INSERT INTO searchText (searchText, rowid, text) VALUES ('delete', old.id, old.text);
            END;

            CREATE TRIGGER search_episode_added AFTER INSERT ON episode BEGIN
                INSERT INTO searchEntry (episodeId, kind, source, text) VALUES (new.id, 'title', '', new.title);
            END;
            CREATE TRIGGER search_episode_renamed AFTER UPDATE OF title ON episode WHEN new.title IS NOT old.title BEGIN
                DELETE FROM searchEntry WHERE episodeId = new.id AND kind = 'title';
                INSERT INTO searchEntry (episodeId, kind, source, text) VALUES (new.id, 'title', '', new.title);
            END;
            CREATE TRIGGER search_episode_removed AFTER DELETE ON episode BEGIN
                DELETE FROM searchEntry WHERE episodeId = old.id;
            END;
            """)
        // The feed's notes and chapters (written by INSERT OR REPLACE: its delete fires no trigger, so
        // the insert clears what was there), the other chapter lists, and the transcript.
        for event in ["INSERT", "UPDATE"] {
            try db.execute(sql: """
                CREATE TRIGGER search_detail_\(event.lowercased()) AFTER \(event) ON episodeDetail BEGIN
                    DELETE FROM searchEntry WHERE episodeId = new.episodeId AND (kind = 'notes' OR (kind = 'chapter' AND source = 'feed'));
                    INSERT INTO searchEntry (episodeId, kind, source, text)
                        SELECT new.episodeId, 'notes', '', new.description WHERE new.description != '';
                    INSERT INTO searchEntry (episodeId, kind, source, at, text)
                        SELECT new.episodeId, 'chapter', 'feed', \(start), value ->> 'title' FROM \(chapters)
                        WHERE coalesce(value ->> 'title', '') != '';
                END;
                CREATE TRIGGER search_chapters_\(event.lowercased()) AFTER \(event) ON chapterList BEGIN
                    DELETE FROM searchEntry WHERE episodeId = new.episodeId AND kind = 'chapter' AND source = new.kind;
                    INSERT INTO searchEntry (episodeId, kind, source, at, text)
                        SELECT new.episodeId, 'chapter', new.kind, \(start), value ->> 'title' FROM \(chapters)
                        WHERE coalesce(value ->> 'title', '') != '';
                END;
                CREATE TRIGGER search_transcript_\(event.lowercased()) AFTER \(event) ON transcript BEGIN
                    DELETE FROM searchEntry WHERE episodeId = new.episodeId AND kind = 'transcript';
                    INSERT INTO searchEntry (episodeId, kind, source, at, text)
                        SELECT new.episodeId, 'transcript', '', \(start), value ->> 'text' FROM \(spoken)
                        WHERE coalesce(value ->> 'text', '') != '';
                END;
                """)
        }
        for table in ["chapterList", "transcript"] {
            let kind = table == "transcript" ? "kind = 'transcript'" : "kind = 'chapter' AND source = old.kind"
            try db.execute(sql: """
                CREATE TRIGGER search_\(table)_removed AFTER DELETE ON \(table) BEGIN
                    DELETE FROM searchEntry WHERE episodeId = old.episodeId AND \(kind);
                END;
                """)
        }
        try fillSearchIndex(db)
    }

    /// Builds the index anew from what the library holds, as migration v18
    /// and `indexSearchText` do for a library that has none
    /// (docs/benchmarks.md has its time on a large library).
    public func rebuildSearchIndex() throws(LibraryError) {
        try writing { db in
            try db.execute(sql: """
                INSERT INTO searchText (searchText) VALUES ('delete-all');
                UPDATE searchProgress SET indexedUpTo = 0;
                DELETE FROM searchEntry;
                """)
            try Self.fillSearchIndex(db)
        }
        while try indexSearchText() > 0 {}
    }

    /// Entries written since the index last caught up.
    public func unindexedSearchText() throws(LibraryError) -> Int {
        try reading { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM searchEntry WHERE id > (SELECT indexedUpTo FROM searchProgress)") ?? 0
        }
    }

    /// Puts up to `batch` entries written since the index last caught up into
    /// it, in one write; how many it put. The texts are kept as they are
    /// written (a refresh writes thousands) and indexed after, a batch at a
    /// time, so a refresh or an import waits for no index.
    @discardableResult
    public func indexSearchText(batch: Int = 2000) throws(LibraryError) -> Int {
        try writing { db in
            let from = try Int64.fetchOne(db, sql: "SELECT indexedUpTo FROM searchProgress") ?? 0
            guard let upTo = try Int64.fetchOne(db, sql: """
                SELECT max(id) FROM (SELECT id FROM searchEntry WHERE id > ? ORDER BY id LIMIT ?)
                """, arguments: [from, max(batch, 1)]) else { return 0 }
            try db.execute(sql: "INSERT INTO searchText (rowid, text) SELECT id, text FROM searchEntry WHERE id > ? AND id <= ?",
                           arguments: [from, upTo])
            try db.execute(sql: "UPDATE searchProgress SET indexedUpTo = ?", arguments: [upTo])
            return db.changesCount > 0 ? Int(upTo - from) : 0
        }
    }

    private static func fillSearchIndex(_ db: Database) throws {
        let start = "(CASE WHEN json_type(value, '$.start') IN ('integer', 'real') THEN value ->> 'start' END)"
        try db.execute(sql: """
            INSERT INTO searchEntry (episodeId, kind, source, text) SELECT id, 'title', '', title FROM episode;
            INSERT INTO searchEntry (episodeId, kind, source, text)
                SELECT episodeId, 'notes', '', description FROM episodeDetail WHERE description != '';
            INSERT INTO searchEntry (episodeId, kind, source, at, text)
                SELECT episodeId, 'chapter', 'feed', \(start), value ->> 'title'
                FROM episodeDetail, json_each(CASE WHEN json_valid(chapters) THEN chapters ELSE '[]' END)
                WHERE coalesce(value ->> 'title', '') != '';
            INSERT INTO searchEntry (episodeId, kind, source, at, text)
                SELECT episodeId, 'chapter', chapterList.kind, \(start), value ->> 'title'
                FROM chapterList, json_each(CASE WHEN json_valid(chapters) THEN chapters ELSE '[]' END)
                WHERE coalesce(value ->> 'title', '') != '';
            INSERT INTO searchEntry (episodeId, kind, source, at, text)
                SELECT episodeId, 'transcript', '', \(start), value ->> 'text'
                FROM transcript, json_each(CASE WHEN json_valid(cues) THEN cues ELSE '[]' END)
                WHERE coalesce(value ->> 'text', '') != '';
            """)
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
