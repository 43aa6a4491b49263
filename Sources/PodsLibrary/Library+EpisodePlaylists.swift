import Foundation
import GRDB
import PodsFeedParser
import PodsSettings

/// What a smart playlist holds: the episodes that pass every rule given,
/// in its order. Kept as JSON in the library.
public struct PlaylistRules: Sendable, Equatable, Codable {
    public enum Order: String, Sendable, Codable, CaseIterable {
        case newest, oldest, shortest, longest
    }

    /// Only these podcasts' episodes (empty: every podcast's).
    public var podcasts: [Int64] = []
    public var unplayed = false
    public var downloaded = false
    /// Seconds; an episode of unknown length passes neither.
    public var minDuration: Double?
    public var maxDuration: Double?
    /// Published at most this many seconds ago.
    public var maxAge: Double?
    /// A `TitlePattern` over episode titles.
    public var title: String?
    public var order = Order.newest

    public init(podcasts: [Int64] = [], unplayed: Bool = false, downloaded: Bool = false, minDuration: Double? = nil,
                maxDuration: Double? = nil, maxAge: Double? = nil, title: String? = nil, order: Order = .newest) {
        (self.podcasts, self.unplayed, self.downloaded) = (podcasts, unplayed, downloaded)
        (self.minDuration, self.maxDuration, self.maxAge, self.title, self.order) = (minDuration, maxDuration, maxAge, title, order)
    }

    /// The most podcasts one playlist names.
    public static let maximumPodcasts = 1000
}

/// A named list of episodes: one of rules (`rules`), or kept by hand (`rules` nil).
public struct EpisodePlaylist: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var rules: PlaylistRules?
    /// How many episodes it holds now.
    public var count: Int
    public var createdAt: Date
    public var modifiedAt: Date
    /// When it was last played (activated).
    public var playedAt: Date?
}

extension Library {
    /// The most playlists a library keeps (each is an MPRIS playlist, and every desktop lists them).
    public static let maximumPlaylists = 1000
    /// The longest name, in characters.
    public static let playlistNameLimit = 100

    // MARK: - Making and changing

    /// A new playlist: of `rules`, or (nil) one kept by hand. A name taken
    /// (without regard to case), an empty or overlong one, rules with values
    /// out of range or a pattern that is no regular expression are refused;
    /// nothing is written.
    @discardableResult
    public func createPlaylist(_ name: String, rules: PlaylistRules?, at now: Date = Date()) throws(LibraryError) -> EpisodePlaylist {
        let name = Self.oneLine(name)
        guard !name.isEmpty, Self.fits(name, Self.playlistNameLimit) else {
            throw LibraryError(.invalid, "a playlist's name is 1 to \(Self.playlistNameLimit) characters")
        }
        guard Int64(name) == nil else { throw LibraryError(.invalid, "a playlist's name is not a number (numbers are ids)") }
        // "queue" names the queue wherever a playlist is named (ADVERSARIAL-5, 7).
        guard name.lowercased() != "queue" else { throw LibraryError(.invalid, "\"queue\" is the queue's name") }
        if let rules { try Self.check(rules) }
        let json = try rules.map { rules throws(LibraryError) in
            do { return String(decoding: try JSONEncoder().encode(rules), as: UTF8.self) } catch {
                throw LibraryError(.invalid, "the playlist's rules: \(error)")
            }
        }
        return try writing { db in
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM playlist") ?? 0 < Self.maximumPlaylists else {
                throw LibraryError(.invalid, "a library keeps at most \(Self.maximumPlaylists) playlists")
            }
            guard try Int64.fetchOne(db, sql: "SELECT id FROM playlist WHERE name = ?", arguments: [name]) == nil else {
                throw LibraryError(.duplicate, "there is a playlist called \(name) already")
            }
            if let rules {
                let known = try Int.fetchOne(db, sql: "SELECT count(*) FROM podcast WHERE id IN (SELECT value FROM json_each(?))",
                                             arguments: [Self.jsonArray(rules.podcasts)]) ?? 0
                guard known == Set(rules.podcasts).count else { throw LibraryError(.notFound, "a podcast the playlist names is not subscribed") }
            }
            try db.execute(sql: "INSERT INTO playlist (name, rules, createdAt, modifiedAt) VALUES (?, ?, ?, ?)",
                           arguments: [name, json, now.timeIntervalSince1970, now.timeIntervalSince1970])
            return try Self.playlist(db.lastInsertedRowID, db, now: now)
        }
    }

    public func deletePlaylist(_ id: Int64) throws(LibraryError) {
        try writing { db in
            try db.execute(sql: "DELETE FROM playlist WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw LibraryError(.notFound, "no playlist \(id)") }
            try db.execute(sql: "DELETE FROM playlistActive WHERE playlistId = ?", arguments: [id])
        }
    }

    /// Adds `episodes` to a list kept by hand, at `index` (nil: the end); one already in it moves there.
    public func addToPlaylist(_ id: Int64, _ episodes: [Int64], at index: Int? = nil, now: Date = Date()) throws(LibraryError) {
        try writing { db in
            let playlist = try Self.playlist(id, db, now: now)
            guard playlist.rules == nil else { throw LibraryError(.invalid, "\(playlist.name) is a playlist of rules: it holds what they choose") }
            for episode in episodes { _ = try Self.episode(episode, db) }
            let others = "SELECT rank FROM playlistItem WHERE playlistId = ? AND episodeId NOT IN (SELECT value FROM json_each(?)) ORDER BY rank"
            var ranks = try Double.fetchAll(db, sql: others, arguments: [id, Self.jsonArray(episodes)])
            let at = min(max(0, index ?? ranks.count), ranks.count)
            func bounds() -> (low: Double, step: Double) {
                let low = at > 0 ? ranks[at - 1] : (ranks.first ?? 1) - 1
                let high = at < ranks.count ? ranks[at] : (ranks.last ?? 0) + Double(episodes.count + 1)
                return (low, (high - low) / Double(episodes.count + 1))
            }
            var (low, step) = bounds()
            // Ranks are midpoints: adding at one place again and again halves the gap each time, and
            // after about fifty adds two ranks were equal and the order was the ids' (REVIEW-4, N17).
            // A gap too narrow to split is made whole again: the list renumbered 1, 2, 3, … as it stands.
            if step < max(1, abs(low)) * 1e-9 {
                try db.execute(sql: """
                    UPDATE playlistItem SET rank = (SELECT n FROM (SELECT episodeId AS e, row_number() OVER (ORDER BY rank, episodeId) AS n
                        FROM playlistItem WHERE playlistId = ?1) WHERE e = playlistItem.episodeId) WHERE playlistId = ?1
                    """, arguments: [id])
                ranks = try Double.fetchAll(db, sql: others, arguments: [id, Self.jsonArray(episodes)])
                (low, step) = bounds()
            }
            for (offset, episode) in episodes.enumerated() {
                try db.execute(sql: """
                    INSERT INTO playlistItem (playlistId, episodeId, rank) VALUES (?, ?, ?)
                    ON CONFLICT(playlistId, episodeId) DO UPDATE SET rank = excluded.rank
                    """, arguments: [id, episode, low + step * Double(offset + 1)])
            }
            try db.execute(sql: "UPDATE playlist SET modifiedAt = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
        }
    }

    public func removeFromPlaylist(_ id: Int64, _ episode: Int64, now: Date = Date()) throws(LibraryError) {
        try writing { db in
            let playlist = try Self.playlist(id, db, now: now)
            guard playlist.rules == nil else { throw LibraryError(.invalid, "\(playlist.name) is a playlist of rules: it holds what they choose") }
            try db.execute(sql: "DELETE FROM playlistItem WHERE playlistId = ? AND episodeId = ?", arguments: [id, episode])
            if db.changesCount == 0 { throw LibraryError(.notFound, "episode \(episode) is not in \(playlist.name)") }
            try db.execute(sql: "UPDATE playlist SET modifiedAt = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
        }
    }

    // MARK: - Reading

    public func playlist(_ id: Int64, now: Date = Date()) throws(LibraryError) -> EpisodePlaylist {
        try reading { db in try Self.playlist(id, db, now: now) }
    }

    /// The playlist `text` names: its id, or its name (without regard to case).
    public func playlist(matching text: String, now: Date = Date()) throws(LibraryError) -> EpisodePlaylist {
        try reading { db in
            if let id = Int64(text) { return try Self.playlist(id, db, now: now) }
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM playlist WHERE name = ?", arguments: [Self.oneLine(text)]) else {
                throw LibraryError(.notFound, "no playlist is called \(text.prefix(Self.playlistNameLimit))")
            }
            return try Self.playlist(id, db, now: now)
        }
    }

    /// How many playlists there are (without counting what each holds).
    public func playlistCount() throws(LibraryError) -> Int {
        try reading { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM playlist") ?? 0 }
    }

    /// The playlists (at most `maximumPlaylists`), with how many episodes each holds now.
    public func playlists(now: Date = Date()) throws(LibraryError) -> [EpisodePlaylist] {
        try reading { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM playlist ORDER BY name COLLATE NOCASE LIMIT ?", arguments: [Self.maximumPlaylists])
                .map { id in try Self.playlist(id, db, now: now) }
        }
    }

    /// Up to `limit` of the playlist's episodes from the `offset`th, in its order.
    public func playlistEpisodes(_ id: Int64, offset: Int, limit: Int, now: Date = Date()) throws(LibraryError) -> [EpisodeSummary] {
        try reading { db in
            let playlist = try Self.playlist(id, db, now: now)
            let (filter, arguments) = Self.filter(playlist, now: now)
            return try Self.summaries(db, Self.summarySelect + " WHERE \(filter) ORDER BY \(Self.order(playlist)) LIMIT ? OFFSET ?",
                                      StatementArguments(arguments + [max(0, limit), max(0, offset)]))
        }
    }

    // MARK: - What plays next

    /// What the listener last activated: a playlist's id, `queue` for the
    /// queue (`QueuePlaylist.id`), or nil (a podcast, or nothing yet).
    public func activePlaylist() throws(LibraryError) -> Int64? {
        try reading { db in try Self.activePlaylist(db) }
    }

    /// Makes `id` (a playlist, `QueuePlaylist.id`, or nil) what plays next after each episode.
    public func setActivePlaylist(_ id: Int64?, now: Date = Date()) throws(LibraryError) {
        try writing { db in
            if let id, id != QueuePlaylist.id { _ = try Self.playlist(id, db, now: now) }
            try db.execute(sql: "DELETE FROM playlistActive")
            if let id {
                try db.execute(sql: "INSERT INTO playlistActive (playlistId) VALUES (?)", arguments: [id])
                try db.execute(sql: "UPDATE playlist SET playedAt = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id])
            }
        }
    }

    /// The active playlist's episode after `id` (its first when `id` is not in it); nil at its end.
    static func nextInPlaylist(_ playlistID: Int64, after id: Int64, _ db: Database) throws -> Int64? {
        let now = Date()
        let playlist = try playlist(playlistID, db, now: now)
        let (filter, arguments) = Self.filter(playlist, now: now)
        return try Int64.fetchOne(db, sql: """
            WITH listed AS (SELECT episode.id, row_number() OVER (ORDER BY \(order(playlist))) AS n FROM episode WHERE \(filter))
            SELECT id FROM listed WHERE id != ? AND n > coalesce((SELECT n FROM listed WHERE id = ?), 0) ORDER BY n LIMIT 1
            """, arguments: StatementArguments(arguments + [id, id]))
    }

    static func activePlaylist(_ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT playlistId FROM playlistActive LIMIT 1")
    }

    // MARK: - Rules as SQL

    private static func check(_ rules: PlaylistRules) throws(LibraryError) {
        guard rules.podcasts.count <= PlaylistRules.maximumPodcasts else {
            throw LibraryError(.invalid, "a playlist names at most \(PlaylistRules.maximumPodcasts) podcasts")
        }
        for duration in [rules.minDuration, rules.maxDuration, rules.maxAge].compactMap({ $0 }) where MediaSeconds.checked(duration) == nil {
            throw LibraryError(.invalid, "a playlist's durations and age are 0 to \(Int(MediaSeconds.maximum)) seconds")
        }
        if let title = rules.title {
            do throws(SettingsError) { _ = try TitlePattern(title) } catch { throw LibraryError(.invalid, error.message) }
        }
    }

    /// The WHERE clause (over `episode`) and its arguments.
    private static func filter(_ playlist: EpisodePlaylist, now: Date) -> (String, [any DatabaseValueConvertible & Sendable]) {
        guard let rules = playlist.rules else {
            return ("episode.id IN (SELECT episodeId FROM playlistItem WHERE playlistId = ?)", [playlist.id])
        }
        var clauses = ["1"]
        var arguments: [any DatabaseValueConvertible & Sendable] = []
        if !rules.podcasts.isEmpty {
            clauses.append("episode.podcastId IN (SELECT value FROM json_each(?))")
            arguments.append(jsonArray(rules.podcasts))
        }
        if rules.unplayed { clauses.append("NOT episode.completed") }
        if rules.downloaded { clauses.append("episode.id IN (SELECT episodeId FROM cachedMedia WHERE complete)") }
        if let minimum = rules.minDuration { clauses.append("episode.duration >= ?"); arguments.append(minimum) }
        if let maximum = rules.maxDuration { clauses.append("episode.duration <= ?"); arguments.append(maximum) }
        if let age = rules.maxAge { clauses.append("episode.published >= ?"); arguments.append(now.timeIntervalSince1970 - age) }
        if let title = rules.title { clauses.append("\(TitleMatchFunction.name)(?, episode.title)"); arguments.append(title) }
        return (clauses.joined(separator: " AND "), arguments)
    }

    private static func order(_ playlist: EpisodePlaylist) -> String {
        guard let rules = playlist.rules else {
            return "(SELECT rank FROM playlistItem WHERE playlistId = \(playlist.id) AND episodeId = episode.id), episode.id"
        }
        // Newest and oldest first walk the library's own index, as `pods episodes --newest/--oldest` list.
        return switch rules.order {
        case .newest: "\(episodeSortKey), episode.id"
        case .oldest: "\(episodeSortKey) DESC, episode.id DESC"
        case .shortest: "episode.duration IS NULL, episode.duration, episode.id"
        case .longest: "episode.duration IS NULL, episode.duration DESC, episode.id"
        }
    }

    private static func playlist(_ id: Int64, _ db: Database, now: Date) throws -> EpisodePlaylist {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM playlist WHERE id = ?", arguments: [id]) else {
            throw LibraryError(.notFound, "no playlist \(id)")
        }
        let rules = (row["rules"] as String?).flatMap { try? JSONDecoder().decode(PlaylistRules.self, from: Data($0.utf8)) }
        var playlist = EpisodePlaylist(
            id: id, name: row["name"], rules: rules, count: 0, createdAt: Date(timeIntervalSince1970: row["createdAt"]),
            modifiedAt: Date(timeIntervalSince1970: row["modifiedAt"]),
            playedAt: (row["playedAt"] as Double?).map(Date.init(timeIntervalSince1970:)))
        if row["rules"] as String? != nil, rules == nil { playlist.rules = PlaylistRules(podcasts: [-1]) }  // unreadable: holds nothing
        let (filter, arguments) = Self.filter(playlist, now: now)
        playlist.count = try Int.fetchOne(db, sql: "SELECT count(*) FROM episode WHERE \(filter)", arguments: StatementArguments(arguments)) ?? 0
        return playlist
    }

    /// Ids as a JSON array, for `json_each(?)`.
    static func jsonArray(_ ids: [Int64]) -> String { "[" + ids.map(String.init).joined(separator: ",") + "]" }
}

/// The queue, as one of the playlists MPRIS shows.
public enum QueuePlaylist {
    /// What `activePlaylist` says when the queue is active (no playlist has it).
    public static let id: Int64 = 0
}

/// `pods_title_matches(pattern, title)`: whether the `TitlePattern` occurs
/// in the title. Each connection compiles a pattern once.
enum TitleMatchFunction {
    static let name = "pods_title_matches"

    static func make() -> DatabaseFunction {
        let compiled = CompiledPatterns()
        return DatabaseFunction(name, argumentCount: 2, pure: true) { values in
            guard let source = String.fromDatabaseValue(values[0]), let title = String.fromDatabaseValue(values[1]) else { return false }
            return compiled.matches(source, title)
        }
    }

    /// Matchers by pattern, for one connection.
    private final class CompiledPatterns: @unchecked Sendable {
        // @unchecked: `matchers` is read and written only under `lock`, and a
        // matcher runs only while it is held (one connection's statement
        // calls it, one row at a time; the lock serializes any other).
        private let lock = NSLock()
        private var matchers: [String: (String) -> Bool] = [:]

        func matches(_ source: String, _ title: String) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            if let matcher = matchers[source] { return matcher(title) }
            let matcher = (try? TitlePattern(source))?.matcher() ?? { _ in false }
            if matchers.count > 64 { matchers.removeAll() }
            matchers[source] = matcher
            return matcher(title)
        }
    }
}
