import Foundation
import GRDB
import PodsFeedParser
import Synchronization

/// The podcast library: one SQLite file, `library.sqlite`, in the data
/// directory, in WAL mode, with versioned migrations.
///
/// Podcasts, their episodes, each episode's listening status, the queue and
/// the player's settings.
public final class Library: Sendable {
    /// The file name inside the data directory.
    public static let fileName = "library.sqlite"

    let database: DatabasePool
    let folder: LogFolder
    /// The folder holding the library file.
    public let directory: URL
    /// What each commit changed, for whoever follows the library.
    public let changes = LibraryChangeFeed()
    /// Where the title index is matched (`Library+TitleIndex`), one run at a time.
    let titleIndex = TitleIndexLane()
    /// Each playlist's count as last read (`playlists`).
    let playlistCounts = Mutex<[Int64: PlaylistCount]>([:])

    /// Opens (creating and migrating if needed) the library in `directory`.
    public convenience init(directory: URL) throws(LibraryError) {
        try self.init(directory: directory, migratingUpTo: nil)
    }

    /// How long a connection waits for another one's lock before it fails.
    static let busyTimeout: TimeInterval = 10

    /// Migrates only up to `last` (nil: all); tests make older libraries with it.
    init(directory: URL, migratingUpTo last: String?) throws(LibraryError) {
        let path = directory.appendingPathComponent(Self.fileName).path
        self.directory = directory
        do {
            // The library holds listening history and private feeds' URLs: the user's alone, however
            // open the home folder is (SQLite gives its log files the library file's mode).
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let created = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if created >= 0 { close(created) }
            chmod(path, 0o600)
            let folder = LogFolder(path: path)
            self.folder = folder
            var configuration = Configuration()
            // Another connection may hold the file for a moment: the last one to close a large
            // log folds it whole under an exclusive lock (LogFolder's, the test tools'), and a
            // podsd started with --replace meets the old one's last writes. Wait for it rather
            // than fail (GRDB's default): a podsd that cannot open its library runs without one.
            configuration.busyMode = .timeout(Library.busyTimeout)
            configuration.prepareDatabase { db in
                // A new file gets 16 KB pages: an episode's detail row (a 2 KB
                // description) packs seven to a page instead of one to a 4 KB
                // page. A file that has tables keeps its page size.
                try db.execute(sql: "PRAGMA page_size = 16384")
                // The write-ahead log is cut back to 4 MB after each checkpoint
                // instead of keeping the size of the largest refresh.
                try db.execute(sql: "PRAGMA journal_size_limit = 4194304")
                // A commit reaches the operating system before it returns
                // (the write-ahead log survives a kill -9 of podsd), but is
                // not forced to the disk each time: SQLite's advice for WAL.
                // A power cut may lose the last commits, never the file;
                // without it a 200-feed import waited for 200 fsyncs and
                // playback's progress forced the disk every second.
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                if !db.configuration.readonly { folder.install(on: db) }
                // Readers keep up to 4 MiB of pages (SQLite's default is 2):
                // the newest-first list reads the episode table at as many
                // places at once as there are podcasts (each feed's rows lie
                // together), and with fewer pages than places every row
                // costs a page read; 256 pages of 16 KB serve 200 podcasts.
                // The writer keeps the default.
                if db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -4096") }
            }
            database = try DatabasePool(path: path, configuration: configuration)
            if let last { try Self.migrator.migrate(database, upTo: last) } else { try Self.migrator.migrate(database) }
            LibraryChangeObserver.install(on: database, posting: changes)
        } catch {
            throw LibraryError(path: path, underlying: error)
        }
        // A library from before v22, or one a run ended in the middle of matching: its titles are matched now.
        if last == nil { matchTitlesSoon() }
    }

    /// The episode columns v4 to v19 had, for the migrations that read
    /// episodes back (`episodeSelect` names the columns later ones added).
    private static let episodeSelectBeforeV20 = """
        SELECT episode.*, episodeDetail.description, episodeDetail.descriptionHTML, episodeDetail.chapters,
            episodeDetail.persons, podcast.title AS podcastTitle, podcast.artworkURL AS podcastArtworkURL,
            podcast.author AS podcastAuthor, podcast.feedURL AS podcastFeedURL
        FROM episode JOIN podcast ON podcast.id = episode.podcastId
            LEFT JOIN episodeDetail ON episodeDetail.episodeId = episode.id
        """

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: settings") { db in
            try db.create(table: "setting") { table in
                table.primaryKey("key", .text)
                table.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v2: podcasts, episodes, queue") { db in
            try db.execute(sql: """
                CREATE TABLE podcast (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    feedURL TEXT NOT NULL UNIQUE,
                    title TEXT NOT NULL, author TEXT, description TEXT, artworkURL TEXT, link TEXT, language TEXT,
                    subscribedAt DOUBLE NOT NULL, etag TEXT, lastModified TEXT, lastRefreshedAt DOUBLE, lastError TEXT);
                CREATE TABLE episode (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    podcastId INTEGER NOT NULL REFERENCES podcast(id) ON DELETE CASCADE,
                    guid TEXT NOT NULL, title TEXT NOT NULL, link TEXT, description TEXT NOT NULL, descriptionHTML TEXT,
                    published DOUBLE, duration DOUBLE, artworkURL TEXT, season INTEGER, number INTEGER, episodeType TEXT,
                    explicit BOOLEAN, author TEXT, chaptersURL TEXT, transcriptURL TEXT,
                    enclosures TEXT NOT NULL, chapters TEXT NOT NULL, persons TEXT NOT NULL,
                    feedOrder INTEGER NOT NULL, inFeed BOOLEAN NOT NULL DEFAULT 1,
                    position DOUBLE NOT NULL DEFAULT 0, lastPlayedAt DOUBLE, completed BOOLEAN NOT NULL DEFAULT 0,
                    currentlyPlaying BOOLEAN NOT NULL DEFAULT 0,
                    UNIQUE (podcastId, guid));
                CREATE UNIQUE INDEX episode_currentlyPlaying ON episode(currentlyPlaying) WHERE currentlyPlaying;
                CREATE INDEX episode_published ON episode(podcastId, published);
                CREATE TABLE queueItem (
                    episodeId INTEGER PRIMARY KEY REFERENCES episode(id) ON DELETE CASCADE,
                    rank DOUBLE NOT NULL);
                """)
        }
        migrator.registerMigration("v3: media cache, artwork, auto-download") { db in
            try db.execute(sql: """
                CREATE TABLE cachedMedia (
                    episodeId INTEGER PRIMARY KEY REFERENCES episode(id) ON DELETE CASCADE,
                    url TEXT NOT NULL, finalURL TEXT, length INTEGER NOT NULL, etag TEXT, lastModified TEXT,
                    acceptsRanges BOOLEAN NOT NULL DEFAULT 1, fileName TEXT NOT NULL UNIQUE,
                    validatedAt DOUBLE NOT NULL, lastAccess DOUBLE NOT NULL,
                    complete BOOLEAN NOT NULL DEFAULT 0, pinned BOOLEAN NOT NULL DEFAULT 0);
                CREATE TABLE cachedRange (
                    episodeId INTEGER NOT NULL REFERENCES cachedMedia(episodeId) ON DELETE CASCADE,
                    start INTEGER NOT NULL, "end" INTEGER NOT NULL,
                    PRIMARY KEY (episodeId, start));
                CREATE TABLE artwork (
                    url TEXT PRIMARY KEY, fileName TEXT NOT NULL, etag TEXT, lastModified TEXT, validatedAt DOUBLE NOT NULL);
                ALTER TABLE podcast ADD COLUMN autoDownload INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("v4: list order, content hashes, details apart, descriptions stored once") { db in
            try db.execute(sql: """
                ALTER TABLE episode ADD COLUMN contentHash INTEGER;
                DROP INDEX episode_published;
                CREATE INDEX episode_listOrder ON episode(\(indexedSortKey));
                CREATE INDEX episode_podcastListOrder ON episode(podcastId, \(indexedSortKey));
                CREATE TABLE episodeDetail (
                    episodeId INTEGER PRIMARY KEY REFERENCES episode(id) ON DELETE CASCADE,
                    description TEXT NOT NULL, descriptionHTML TEXT, chapters TEXT NOT NULL, persons TEXT NOT NULL);
                INSERT INTO episodeDetail SELECT id, description, descriptionHTML, chapters, persons FROM episode;
                ALTER TABLE episode DROP COLUMN description;
                ALTER TABLE episode DROP COLUMN descriptionHTML;
                ALTER TABLE episode DROP COLUMN chapters;
                ALTER TABLE episode DROP COLUMN persons;
                """)
            let rows = try Row.fetchAll(db, sql: episodeSelectBeforeV20)
            let hash = try db.makeStatement(sql: "UPDATE episode SET contentHash = ? WHERE id = ?")
            let description = try db.makeStatement(sql: "UPDATE episodeDetail SET description = ? WHERE episodeId = ?")
            for row in rows {
                var stored = try episode(from: row).episode
                let kept = storedDescription(stored)
                // A v3 row held the text even when it was made from the HTML,
                // as for a feed that gives HTML alone: hash it as such a feed.
                if kept.isEmpty, stored.descriptionHTML != nil { stored.plainDescription = nil }
                let id: Int64 = try row.decode(forColumn: "id")
                try hash.execute(arguments: [EpisodeContentHash.of(stored), id])
                try description.execute(arguments: [kept, id])
            }
        }
        migrator.registerMigration("v5: chapter lists, podcast settings") { db in
            try db.execute(sql: """
                CREATE TABLE chapterList (
                    episodeId INTEGER NOT NULL REFERENCES episode(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL, url TEXT NOT NULL, chapters TEXT NOT NULL, error TEXT, fetchedAt REAL NOT NULL,
                    PRIMARY KEY (episodeId, kind));
                CREATE TABLE podcastSetting (
                    podcastId INTEGER NOT NULL REFERENCES podcast(id) ON DELETE CASCADE,
                    key TEXT NOT NULL, value TEXT NOT NULL,
                    PRIMARY KEY (podcastId, key));
                """)
        }
        migrator.registerMigration("v6: transcripts") { db in
            try db.execute(sql: """
                CREATE TABLE transcript (
                    episodeId INTEGER PRIMARY KEY REFERENCES episode(id) ON DELETE CASCADE,
                    url TEXT NOT NULL, format TEXT NOT NULL, cues TEXT NOT NULL, fetchedAt REAL NOT NULL);
                """)
        }
        migrator.registerMigration("v7: refresh failures in a row") { db in
            try db.execute(sql: "ALTER TABLE podcast ADD COLUMN refreshFailures INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v8: sync") { db in
            try db.execute(sql: """
                ALTER TABLE episode ADD COLUMN changedAt DOUBLE;
                CREATE TABLE syncAction (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    episodeId INTEGER NOT NULL REFERENCES episode(id) ON DELETE CASCADE,
                    action TEXT NOT NULL, at DOUBLE NOT NULL, started INTEGER, position INTEGER, total INTEGER);
                CREATE INDEX syncAction_episode ON syncAction(episodeId);
                CREATE TABLE syncSubscription (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, feedURL TEXT NOT NULL UNIQUE,
                    subscribed BOOLEAN NOT NULL, at DOUBLE NOT NULL);
                CREATE TABLE syncDeferred (
                    episodeId INTEGER PRIMARY KEY REFERENCES episode(id) ON DELETE CASCADE,
                    position DOUBLE, completed BOOLEAN, at DOUBLE NOT NULL);
                CREATE TABLE syncAccount (
                    server TEXT NOT NULL, user TEXT NOT NULL, device TEXT NOT NULL, api TEXT NOT NULL,
                    active BOOLEAN NOT NULL DEFAULT 0,
                    subscriptionsSince INTEGER NOT NULL DEFAULT 0, actionsSince INTEGER NOT NULL DEFAULT 0,
                    clockOffset DOUBLE NOT NULL DEFAULT 0, lastSyncAt DOUBLE, lastError TEXT, lastResult TEXT,
                    activatedAt DOUBLE NOT NULL DEFAULT 0,
                    PRIMARY KEY (server, user, device));
                -- What was listened to before is a change made then.
                UPDATE episode SET changedAt = lastPlayedAt WHERE lastPlayedAt IS NOT NULL;
                """)
        }
        migrator.registerMigration("v9: content hashes read words") { db in
            // The hash's first form (FNV-1a, a byte at a time) matches nothing
            // the new one makes: each episode's is made again from what is
            // stored, so the next refresh finds unchanged items unchanged.
            let rows = try Row.fetchCursor(db, sql: episodeSelectBeforeV20)
            let hash = try db.makeStatement(sql: "UPDATE episode SET contentHash = ? WHERE id = ?")
            while let row = try rows.next() {
                let id: Int64 = try row.decode(forColumn: "id")
                try hash.execute(arguments: [EpisodeContentHash.of(try episode(from: row).episode), id])
            }
        }
        migrator.registerMigration("v10: item fingerprints") { db in
            // The fingerprint of the item's bytes it was last parsed from
            // (`ItemFingerprint`): a refresh leaves out known items unparsed.
            try db.execute(sql: "ALTER TABLE episode ADD COLUMN itemHash INTEGER")
        }
        migrator.registerMigration("v11: times in range, no file: URLs for web podcasts") { db in
            try clearStoredValuesOutsideTheRules(db)
        }
        migrator.registerMigration("v12: bookmarks") { db in
            try db.execute(sql: """
                CREATE TABLE bookmark (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    episodeId INTEGER NOT NULL REFERENCES episode(id) ON DELETE CASCADE,
                    position DOUBLE NOT NULL, note TEXT NOT NULL, cue TEXT, createdAt DOUBLE NOT NULL);
                CREATE INDEX bookmark_episode ON bookmark(episodeId, id);
                """)
        }
        migrator.registerMigration("v13: serial podcasts") { db in
            // `itunes:type serial`: the show is heard in order. Read from each feed's
            // channel at its next full fetch, which forgetting the validators makes the next refresh.
            try db.execute(sql: """
                ALTER TABLE podcast ADD COLUMN serial BOOLEAN NOT NULL DEFAULT 0;
                UPDATE podcast SET etag = NULL, lastModified = NULL;
                """)
        }
        migrator.registerMigration("v14: the listening log") { db in
            // One row per stretch of listening (`PlaySession`). No reference to
            // the episode: what was heard stays counted after a feed drops it.
            try db.execute(sql: """
                CREATE TABLE playSession (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    episodeId INTEGER NOT NULL, podcastId INTEGER NOT NULL,
                    episodeTitle TEXT NOT NULL, podcastTitle TEXT NOT NULL,
                    startedAt DOUBLE NOT NULL UNIQUE, seconds DOUBLE NOT NULL,
                    fromPosition DOUBLE NOT NULL, toPosition DOUBLE NOT NULL, rate DOUBLE NOT NULL);
                """)
        }
        migrator.registerMigration("v15: rules") { db in
            // `ignored`: 1 when a podcast's rules ignored the episode, 2 once the listener
            // played or marked it (the rules never judge it again). Downloads the listener
            // asked for are pinned apart from auto-downloads: retention never deletes them.
            // The rules judge episodes that arrive from now on, not those already here.
            try db.execute(sql: """
                ALTER TABLE episode ADD COLUMN ignored INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE downloadPin (episodeId INTEGER PRIMARY KEY REFERENCES episode(id) ON DELETE CASCADE);
                INSERT INTO setting (key, value) SELECT 'rulesJudgedUpTo', coalesce(max(id), 0) FROM episode;
                """)
            // Every download made before rules existed was the listener's (REVIEW-4, N8): no
            // retention rule may take it.
            try db.execute(sql: "INSERT OR IGNORE INTO downloadPin (episodeId) SELECT episodeId FROM cachedMedia WHERE pinned")
        }
        migrator.registerMigration("v16: playlists") { db in
            // A playlist of rules (`rules`, JSON: `PlaylistRules`) or a list kept by
            // hand (`rules` NULL, its episodes in `playlistItem`).
            try db.execute(sql: """
                CREATE TABLE playlist (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE COLLATE NOCASE, rules TEXT,
                    createdAt DOUBLE NOT NULL, modifiedAt DOUBLE NOT NULL, playedAt DOUBLE);
                CREATE TABLE playlistItem (
                    playlistId INTEGER NOT NULL REFERENCES playlist(id) ON DELETE CASCADE,
                    episodeId INTEGER NOT NULL REFERENCES episode(id) ON DELETE CASCADE,
                    rank DOUBLE NOT NULL, PRIMARY KEY (playlistId, episodeId));
                CREATE INDEX playlistItem_rank ON playlistItem(playlistId, rank);
                CREATE TABLE playlistActive (playlistId INTEGER NOT NULL);
                """)
        }
        migrator.registerMigration("v17: loudness") { db in
            // A whole downloaded file's loudness (`EpisodeLoudness`), kept with its
            // cache record: a file deleted or replaced is measured again.
            try db.execute(sql: """
                CREATE TABLE episodeLoudness (
                    episodeId INTEGER PRIMARY KEY REFERENCES cachedMedia(episodeId) ON DELETE CASCADE,
                    integrated DOUBLE NOT NULL, truePeak DOUBLE NOT NULL, length INTEGER NOT NULL);
                """)
        }
        // Titles, show notes, chapter titles and transcript lines, searched by `pods find` (`Library+Search`).
        migrator.registerMigration("v18: search") { db in try Self.createSearchIndex(db) }
        migrator.registerMigration("v19: the merge marks what it writes for search") { db in try Self.dropMergeTriggers(db) }
        migrator.registerMigration("v20: Podcasting 2.0") { db in
            // A channel's guid, medium, update frequency, funding, people, trailers and podroll
            // (`ChannelDetails`, JSON); an episode's season name and soundbites. Read at each feed's
            // next full fetch, which forgetting the validators makes the next refresh.
            try db.execute(sql: """
                ALTER TABLE podcast ADD COLUMN details TEXT;
                CREATE INDEX podcast_guid ON podcast(details ->> 'guid') WHERE details ->> 'guid' IS NOT NULL;
                ALTER TABLE episode ADD COLUMN seasonName TEXT;
                ALTER TABLE episodeDetail ADD COLUMN soundbites TEXT NOT NULL DEFAULT '[]';
                UPDATE podcast SET etag = NULL, lastModified = NULL;
                """)
        }
        migrator.registerMigration("v21: stored seconds in range") { db in try Self.clearStoredSecondsOutsideTheRules(db) }
        migrator.registerMigration("v22: title playlists matched once") { db in try Self.createTitleIndex(db) }
        return migrator
    }

    /// Values written before the parser checked them: an itunes:duration of
    /// 1e23 trapped podsd at every start after an unclean exit. Times no
    /// episode has go (`MediaSeconds`), and `file:` URLs a web feed named go
    /// (`URLPolicy`: a podcast whose own feed is a file may name files; no
    /// other). Every item is parsed again at the next refresh (its
    /// fingerprint was made by the older parser). Migration v11.
    static func clearStoredValuesOutsideTheRules(_ db: Database) throws {
        let maximum = MediaSeconds.maximum
        let web = "(SELECT id FROM podcast WHERE feedURL NOT LIKE 'file:%')"
        let fileURL = "LIKE 'file:%'"
        try db.execute(sql: """
            UPDATE episode SET duration = NULL WHERE NOT (duration >= 0 AND duration <= \(maximum));
            UPDATE episode SET position = 0 WHERE NOT (position >= 0 AND position <= \(maximum));
            UPDATE syncDeferred SET position = NULL WHERE NOT (position >= 0 AND position <= \(maximum));
            UPDATE podcast SET artworkURL = NULL WHERE feedURL NOT LIKE 'file:%' AND artworkURL \(fileURL);
            UPDATE podcast SET link = NULL WHERE feedURL NOT LIKE 'file:%' AND link \(fileURL);
            UPDATE episode SET artworkURL = NULL WHERE artworkURL \(fileURL) AND podcastId IN \(web);
            UPDATE episode SET link = NULL WHERE link \(fileURL) AND podcastId IN \(web);
            UPDATE episode SET chaptersURL = NULL WHERE chaptersURL \(fileURL) AND podcastId IN \(web);
            UPDATE episode SET transcriptURL = NULL WHERE transcriptURL \(fileURL) AND podcastId IN \(web);
            UPDATE episode SET enclosures = '[]' WHERE podcastId IN \(web)
                AND EXISTS (SELECT 1 FROM json_each(episode.enclosures) WHERE json_extract(value, '$.url') \(fileURL));
            DELETE FROM chapterList WHERE url \(fileURL) AND episodeId IN (SELECT id FROM episode WHERE podcastId IN \(web));
            DELETE FROM transcript WHERE url \(fileURL) AND episodeId IN (SELECT id FROM episode WHERE podcastId IN \(web));
            UPDATE episode SET itemHash = NULL;
            """)
    }

    /// Seconds an older Pods stored unchecked, wherever they are kept
    /// (REVIEW-4, N3: a transcript cue at 1e300 s killed podsd at every play
    /// of its episode; v11 cleaned episodes' times, not the rest). A
    /// transcript with a time no episode has is forgotten, to be fetched and
    /// read again by today's reader; other rows keep what is in range.
    /// Readers check again as they read (`TranscriptCue`, `Duration.mediaSeconds`).
    /// Migration v21.
    static func clearStoredSecondsOutsideTheRules(_ db: Database) throws {
        let maximum = MediaSeconds.maximum
        let outside = { (value: String) in "NOT (typeof(\(value)) IN ('integer', 'real') AND \(value) >= 0 AND \(value) <= \(maximum))" }
        try db.execute(sql: """
            DELETE FROM transcript WHERE json_valid(cues) AND EXISTS (SELECT 1 FROM json_each(transcript.cues)
                WHERE (json_extract(value, '$.start') IS NOT NULL AND \(outside("json_extract(value, '$.start')")))
                   OR (json_extract(value, '$.end') IS NOT NULL AND \(outside("json_extract(value, '$.end')"))));
            UPDATE episode SET duration = NULL WHERE duration IS NOT NULL AND \(outside("duration"));
            UPDATE episode SET position = 0 WHERE \(outside("position"));
            UPDATE syncDeferred SET position = NULL WHERE position IS NOT NULL AND \(outside("position"));
            UPDATE bookmark SET position = 0 WHERE \(outside("position"));
            UPDATE playSession SET fromPosition = 0 WHERE \(outside("fromPosition"));
            UPDATE playSession SET toPosition = fromPosition WHERE \(outside("toPosition"));
            UPDATE playSession SET seconds = 0 WHERE \(outside("seconds"));
            UPDATE playSession SET rate = 1 WHERE NOT (typeof(rate) IN ('integer', 'real') AND rate > 0 AND rate <= 16);
            UPDATE syncAction SET started = NULL WHERE started IS NOT NULL AND \(outside("started"));
            UPDATE syncAction SET position = NULL WHERE position IS NOT NULL AND \(outside("position"));
            UPDATE syncAction SET total = NULL WHERE total IS NOT NULL AND \(outside("total"));
            """)
    }

    // MARK: - Settings

    /// The saved playback settings; defaults for what was never saved or
    /// cannot be read back as a number.
    public func playbackSettings() throws(LibraryError) -> PlaybackSettings {
        try reading { db in
            var settings = PlaybackSettings()
            if let rate = try Double.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'rate'"), rate.isFinite {
                settings.rate = rate
            }
            if let volume = try Double.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'volume'"), volume.isFinite {
                settings.volume = volume
            }
            return settings
        }
    }

    /// Saves the playback settings in one transaction.
    public func save(_ settings: PlaybackSettings) throws(LibraryError) {
        try writing { db in
            for (key, value) in [("rate", settings.rate), ("volume", settings.volume)] {
                try db.execute(
                    sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    arguments: [key, String(value)])
            }
        }
    }
}

/// Speed and volume, kept across restarts.
public struct PlaybackSettings: Sendable, Equatable {
    public var rate: Double = 1
    public var volume: Double = 1

    public init(rate: Double = 1, volume: Double = 1) {
        self.rate = rate
        self.volume = volume
    }
}

/// Why a library operation failed; `description` is one line for the user.
public struct LibraryError: Error, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The file could not be opened, read or written.
        case database
        /// No podcast or episode with that id or title.
        case notFound
        /// A title prefix that fits more than one podcast.
        case ambiguous
        /// Already subscribed.
        case duplicate
        /// A feed that could not be fetched, or is not a podcast feed.
        case feed
        /// A value outside what the library keeps (a bookmark's note too long); nothing was written.
        case invalid
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    init(path: String, underlying: any Error) {
        let reason = (underlying as? DatabaseError)?.message ?? String(describing: underlying)
        self.init(.database, "library \(path): \(reason)")
    }

    public var description: String { message }
}
