import Foundation
import PodsFeedParser
import GRDB

/// A listening change waiting for the sync server to acknowledge it.
public struct QueuedAction: Sendable, Equatable {
    public var id: Int64
    public var episodeId: Int64
    public var podcastId: Int64
    /// `play`, `new`, `download` or `delete` (gpodder.net's names).
    public var action: String
    /// When it happened, by this machine's clock.
    public var at: Date
    public var started: Int?
    public var position: Int?
    public var total: Int?
    /// What the server is told: the feed, the enclosure and the guid as they are now.
    public var podcastURL: String
    public var episodeURL: String
    public var guid: String
}

/// An episode as a remote action is matched and applied to it.
public struct SyncEpisode: Sendable, Equatable {
    public var id: Int64
    public var guid: String
    public var enclosureURLs: [String]
    /// The last listening change, local or applied from a sync (this machine's clock).
    public var changedAt: Date?
    public var duration: Double?
}

/// A change another device made, as it applies here.
public struct RemoteChange: Sendable, Equatable {
    public var episodeID: Int64
    public var position: Double?
    public var completed: Bool?
    /// When it was made, by this machine's clock.
    public var at: Date

    public init(episodeID: Int64, position: Double?, completed: Bool?, at: Date) {
        self.episodeID = episodeID
        self.position = position
        self.completed = completed
        self.at = at
    }
}

/// A subscription change waiting for the server.
public struct QueuedSubscription: Sendable, Equatable {
    public var id: Int64
    public var feedURL: String
    public var subscribed: Bool
}

/// The sync server the library follows, and how far it has read it.
public struct SyncAccount: Sendable, Equatable {
    public var server: String
    public var user: String
    public var device: String
    /// `gpodder` or `nextcloud`.
    public var api: String
    /// The server's `timestamp`s to ask from next (0: everything).
    public var subscriptionsSince: Int64 = 0
    public var actionsSince: Int64 = 0
    /// The server's clock minus this machine's, seconds, as last measured.
    public var clockOffset: Double = 0
    public var lastSyncAt: Date?
    public var lastError: String?
    /// The last sync's counts, as JSON.
    public var lastResult: String?
    /// When syncing with this server was last turned on: what was queued
    /// before is history, sent with the time it happened.
    public var activatedAt = Date(timeIntervalSince1970: 0)

    public init(server: String, user: String, device: String, api: String) {
        self.server = server
        self.user = user
        self.device = device
        self.api = api
    }

    /// True until the first sync with this server went through.
    public var isFirstSync: Bool { subscriptionsSince == 0 && actionsSince == 0 }
}

// MARK: - Recording what happens here

extension Library {
    /// Records how far the listener got in `episodeID` as a `play` action
    /// (a played episode as a play to its end). It replaces any action of
    /// the episode's not yet sent: the server needs only the latest.
    public func recordListening(_ episodeID: Int64, started: Int?, total: Int?, at now: Date = Date()) throws(LibraryError) {
        try writing { db in try Self.recordListening(episodeID, started: started, total: total, at: now, db) }
    }

    /// Records the listening that a kill or crash left unrecorded: the
    /// loaded episode played after its last recorded change.
    public func recordUnrecordedListening(_ episodeID: Int64) throws(LibraryError) {
        try writing { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT lastPlayedAt, changedAt FROM episode WHERE id = ?", arguments: [episodeID]),
                  let played: Double = (try row.decode(forColumn: "lastPlayedAt")), played > ((try row.decode(forColumn: "changedAt")) as Double? ?? 0) else { return }
            try Self.recordListening(episodeID, started: nil, total: nil, at: Date(timeIntervalSince1970: played), db)
        }
    }

    static func recordListening(_ episodeID: Int64, started: Int?, total: Int?, at now: Date, _ db: Database) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT position, completed, duration FROM episode WHERE id = ?", arguments: [episodeID])
        else { return }
        // Stored times are checked again before they become Ints: a library written before the
        // parser range-checked them may hold an itunes:duration of 1e23 (a trap at every start).
        let length = try total ?? MediaSeconds.whole(row.storedSeconds("duration"))
        let position = MediaSeconds.whole(try row.storedSeconds("position"), rounding: .down) ?? 0
        if (try row.decode(forColumn: "completed")) as Bool? == true {
            let end = max(length ?? position, 1)
            try queue(episodeID, "play", started: started ?? 0, position: end, total: end, at: now, db)
        } else {
            // A play carries its length; 0 when unknown (AntennaPod then leaves it, gpodder.net keeps it).
            try queue(episodeID, "play", started: min(started ?? position, position), position: position,
                      total: length.map { max($0, position) } ?? 0, at: now, db)
        }
    }

    /// Queues `action`, replacing the episode's unsent one of the same kind
    /// (listening: play/new; the file: download/delete), under a new id so an
    /// acknowledgement of the old one cannot take it away.
    static func queue(_ episodeID: Int64, _ action: String, started: Int? = nil, position: Int? = nil, total: Int? = nil,
                      at now: Date, _ db: Database) throws {
        let kinds = action == "play" || action == "new" ? "'play', 'new'" : "'download', 'delete'"
        try db.execute(sql: "DELETE FROM syncAction WHERE episodeId = ? AND action IN (\(kinds))", arguments: [episodeID])
        try db.execute(sql: """
            INSERT INTO syncAction (episodeId, action, at, started, position, total) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [episodeID, action, now.timeIntervalSince1970, started, position, total])
        try db.execute(sql: "UPDATE episode SET changedAt = MAX(COALESCE(changedAt, 0), ?) WHERE id = ?",
                       arguments: [now.timeIntervalSince1970, episodeID])
    }

    /// Records that the episode's audio was downloaded (or its download deleted).
    public func recordDownload(_ episodeID: Int64, kept: Bool, at now: Date = Date()) throws(LibraryError) {
        try writing { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM episode WHERE id = ?", arguments: [episodeID]) != nil else { return }
            try Self.queue(episodeID, kept ? "download" : "delete", at: now, db)
        }
    }

    static func recordSubscription(_ feedURL: String, subscribed: Bool, at now: Date, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM syncSubscription WHERE feedURL = ?", arguments: [feedURL])
        try db.execute(sql: "INSERT INTO syncSubscription (feedURL, subscribed, at) VALUES (?, ?, ?)",
                       arguments: [feedURL, subscribed, now.timeIntervalSince1970])
    }

    // MARK: - Sending

    /// Up to `limit` queued actions, oldest first.
    public func queuedActions(limit: Int) throws(LibraryError) -> [QueuedAction] {
        try reading { db in
            try Row.fetchAll(db, sql: """
                SELECT syncAction.*, episode.podcastId, episode.guid, podcast.feedURL,
                       json_extract(episode.enclosures, '$[0].url') AS episodeURL
                FROM syncAction JOIN episode ON episode.id = syncAction.episodeId JOIN podcast ON podcast.id = episode.podcastId
                ORDER BY syncAction.id LIMIT ?
                """, arguments: [limit]).map { row in
                QueuedAction(id: (try row.decode(forColumn: "id")), episodeId: (try row.decode(forColumn: "episodeId")), podcastId: (try row.decode(forColumn: "podcastId")), action: (try row.decode(forColumn: "action")),
                             at: try row.storedDate("at") ?? Date(timeIntervalSince1970: 0), started: (try row.decode(forColumn: "started")), position: (try row.decode(forColumn: "position")),
                             total: (try row.decode(forColumn: "total")), podcastURL: (try row.decode(forColumn: "feedURL")), episodeURL: (try row.decode(forColumn: "episodeURL")) ?? "", guid: (try row.decode(forColumn: "guid")))
            }
        }
    }

    /// How many actions wait for the server.
    public func queuedActionCount() throws(LibraryError) -> Int {
        try reading { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM syncAction") ?? 0 }
    }

    /// The server has the actions `ids` (sent stamped `sentAt`, this
    /// machine's clock): they leave the queue, and their episodes' last
    /// change is that stamp, so the server's echo of them changes nothing.
    /// `dropped` leave unsent (podcasts that are not synced).
    public func acknowledgeActions(_ ids: [Int64], sentAt: Date?, dropped: [Int64] = []) throws(LibraryError) {
        try writing { db in
            if let sentAt {
                for chunk in ids.chunked(500) {
                    let marks = chunk.map { _ in "?" }.joined(separator: ",")
                    try db.execute(sql: """
                        UPDATE episode SET changedAt = MAX(COALESCE(changedAt, 0), ?)
                        WHERE id IN (SELECT episodeId FROM syncAction WHERE id IN (\(marks)))
                        """, arguments: StatementArguments([sentAt.timeIntervalSince1970] + chunk.map { $0 as (any DatabaseValueConvertible) }))
                }
            }
            for chunk in (ids + dropped).chunked(500) {
                let marks = chunk.map { _ in "?" }.joined(separator: ",")
                try db.execute(sql: "DELETE FROM syncAction WHERE id IN (\(marks))", arguments: StatementArguments(chunk))
            }
        }
    }

    /// The first sync with a server tells it everything the library knows:
    /// a play for every started or played episode with no action queued.
    /// Returns how many were queued.
    @discardableResult
    public func queueListeningState(at now: Date = Date()) throws(LibraryError) -> Int {
        try writing { db in
            let ids = try Int64.fetchAll(db, sql: """
                SELECT id FROM episode WHERE (completed OR position > 0) AND ignored != 1
                  AND id NOT IN (SELECT episodeId FROM syncAction WHERE action IN ('play', 'new'))
                """)
            for id in ids {
                let changed = try Double.fetchOne(db, sql: "SELECT COALESCE(changedAt, lastPlayedAt) FROM episode WHERE id = ?", arguments: [id])
                try Self.recordListening(id, started: nil, total: nil, at: changed.map(Date.init(timeIntervalSince1970:)) ?? now, db)
            }
            return ids.count
        }
    }

    public func queuedSubscriptions() throws(LibraryError) -> [QueuedSubscription] {
        try reading { db in
            try Row.fetchAll(db, sql: "SELECT id, feedURL, subscribed FROM syncSubscription ORDER BY id").map {
                QueuedSubscription(id: try $0.decode(forColumn: "id"), feedURL: try $0.decode(forColumn: "feedURL"),
                                   subscribed: try $0.decode(forColumn: "subscribed"))
            }
        }
    }

    public func acknowledgeSubscriptions(_ ids: [Int64]) throws(LibraryError) {
        try writing { db in
            for chunk in ids.chunked(500) {
                let marks = chunk.map { _ in "?" }.joined(separator: ",")
                try db.execute(sql: "DELETE FROM syncSubscription WHERE id IN (\(marks))", arguments: StatementArguments(chunk))
            }
        }
    }

    /// A subscription change the sync itself made (a remote add or remove):
    /// not sent back.
    public func forgetQueuedSubscription(_ feedURL: String) throws(LibraryError) {
        try writing { db in try db.execute(sql: "DELETE FROM syncSubscription WHERE feedURL = ?", arguments: [feedURL]) }
    }

    /// A server's `update_urls`: the podcast subscribed at `old` lives at
    /// `new` from now on (unless another podcast is there already).
    public func moveFeed(from old: String, to new: String) throws(LibraryError) {
        try writing { db in
            try db.execute(sql: "UPDATE OR IGNORE podcast SET feedURL = ? WHERE feedURL = ?", arguments: [new, old])
            try db.execute(sql: "UPDATE OR IGNORE syncSubscription SET feedURL = ? WHERE feedURL = ?", arguments: [new, old])
        }
    }

    // MARK: - Applying what the server says

    /// The episodes of `podcastID`, as remote actions are matched to them.
    public func syncEpisodes(podcastID: Int64) throws(LibraryError) -> [SyncEpisode] {
        try reading { db in
            try Row.fetchAll(db, sql: """
                SELECT id, guid, changedAt, duration, (SELECT json_group_array(json_extract(value, '$.url'))
                    FROM json_each(episode.enclosures)) AS urls
                FROM episode WHERE podcastId = ?
                """, arguments: [podcastID]).map { row in
                let urls = ((try row.decode(forColumn: "urls")) as String?).flatMap { try? JSONDecoder().decode([String?].self, from: Data($0.utf8)) } ?? []
                return SyncEpisode(id: (try row.decode(forColumn: "id")), guid: (try row.decode(forColumn: "guid")), enclosureURLs: urls.compactMap { $0 },
                                   changedAt: try row.storedDate("changedAt"), duration: try row.storedSeconds("duration"))
            }
        }
    }

    /// The podcasts holding episodes with these guids (for actions that
    /// name a feed URL not here: the feed moved, or was added under another
    /// address); a guid in several podcasts is left out.
    public func podcastIDs(forGuids guids: [String]) throws(LibraryError) -> [String: Int64] {
        try reading { db in
            var found: [String: Int64] = [:]
            var ambiguous: Set<String> = []
            for chunk in Array(Set(guids)).chunked(500) {
                let marks = chunk.map { _ in "?" }.joined(separator: ",")
                for row in try Row.fetchAll(db, sql: "SELECT guid, podcastId FROM episode WHERE guid IN (\(marks))",
                                            arguments: StatementArguments(Array(chunk))) {
                    let guid: String = (try row.decode(forColumn: "guid"))
                    if found.updateValue((try row.decode(forColumn: "podcastId")), forKey: guid) != nil { ambiguous.insert(guid) }
                }
            }
            for guid in ambiguous { found[guid] = nil }
            return found
        }
    }

    /// What a remote action does to an episode, unless a change here is
    /// newer than `at` (this machine's clock): then nothing, and false. The
    /// episode's own queued older actions go (the newer remote one stands).
    public func applyRemote(_ episodeID: Int64, position: Double?, completed: Bool?, at: Date) throws(LibraryError) -> Bool {
        try applyRemote([RemoteChange(episodeID: episodeID, position: position, completed: completed, at: at)]) == [episodeID]
    }

    /// `applyRemote` for many changes in one transaction, in order; the
    /// episodes that changed.
    public func applyRemote(_ changes: [RemoteChange]) throws(LibraryError) -> [Int64] {
        try writing { db in
            var applied: [Int64] = []
            for change in changes {
                let at = change.at.timeIntervalSince1970
                let changed = try Double.fetchOne(db, sql: "SELECT changedAt FROM episode WHERE id = ?", arguments: [change.episodeID])
                if let changed, changed >= at { continue }
                try db.execute(sql: """
                    UPDATE episode SET position = COALESCE(?, position), completed = COALESCE(?, completed), changedAt = ? WHERE id = ?
                    """, arguments: [change.position.map { max(0, $0) }, change.completed, at, change.episodeID])
                guard db.changesCount > 0 else { continue }
                try db.execute(sql: "DELETE FROM syncAction WHERE episodeId = ? AND action IN ('play', 'new') AND at < ?",
                               arguments: [change.episodeID, at])
                try db.execute(sql: "DELETE FROM syncDeferred WHERE episodeId = ?", arguments: [change.episodeID])
                applied.append(change.episodeID)
            }
            return applied
        }
    }

    /// Keeps a remote change to the playing episode until it stops.
    public func deferRemote(_ episodeID: Int64, position: Double?, completed: Bool?, at: Date) throws(LibraryError) {
        try writing { db in
            try db.execute(sql: """
                INSERT INTO syncDeferred (episodeId, position, completed, at) VALUES (?, ?, ?, ?)
                ON CONFLICT(episodeId) DO UPDATE SET position = excluded.position, completed = excluded.completed, at = excluded.at
                WHERE excluded.at > syncDeferred.at
                """, arguments: [episodeID, position, completed, at.timeIntervalSince1970])
        }
    }

    /// The remote change kept for `episodeID` while it played, taken out.
    public func takeDeferred(_ episodeID: Int64) throws(LibraryError) -> (position: Double?, completed: Bool?, at: Date)? {
        try writing { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM syncDeferred WHERE episodeId = ?", arguments: [episodeID]) else { return nil }
            try db.execute(sql: "DELETE FROM syncDeferred WHERE episodeId = ?", arguments: [episodeID])
            return (try row.storedSeconds("position"), (try row.decode(forColumn: "completed")), try row.storedDate("at") ?? Date(timeIntervalSince1970: 0))
        }
    }

    // MARK: - The account

    /// The server syncing is on with, if any.
    public func syncAccount() throws(LibraryError) -> SyncAccount? {
        try reading { db in try Row.fetchOne(db, sql: "SELECT * FROM syncAccount WHERE active").map(Self.syncAccount(from:)) }
    }

    /// Turns syncing on with `account`'s server, user and device; how far
    /// that server was read before (if ever) is kept.
    public func activateSync(_ account: SyncAccount, at now: Date = Date()) throws(LibraryError) -> SyncAccount {
        try writing { db in
            try db.execute(sql: "UPDATE syncAccount SET active = 0")
            try db.execute(sql: """
                INSERT INTO syncAccount (server, user, device, api, active, activatedAt) VALUES (?, ?, ?, ?, 1, ?)
                ON CONFLICT(server, user, device) DO UPDATE SET api = excluded.api, active = 1, activatedAt = excluded.activatedAt
                """, arguments: [account.server, account.user, account.device, account.api, now.timeIntervalSince1970])
            return try Row.fetchOne(db, sql: "SELECT * FROM syncAccount WHERE active").map(Self.syncAccount(from:)) ?? account
        }
    }

    /// Syncing off; the server's place is kept for a later `activateSync`.
    public func deactivateSync() throws(LibraryError) {
        try writing { db in try db.execute(sql: "UPDATE syncAccount SET active = 0") }
    }

    /// Saves how far the active server was read, and how the sync went.
    public func saveSyncState(_ account: SyncAccount) throws(LibraryError) {
        try writing { db in
            try db.execute(sql: """
                UPDATE syncAccount SET subscriptionsSince = ?, actionsSince = ?, clockOffset = ?, lastSyncAt = ?, lastError = ?, lastResult = ?
                WHERE server = ? AND user = ? AND device = ?
                """, arguments: [account.subscriptionsSince, account.actionsSince, account.clockOffset,
                                 account.lastSyncAt?.timeIntervalSince1970, account.lastError, account.lastResult,
                                 account.server, account.user, account.device])
        }
    }

    private static func syncAccount(from row: Row) throws -> SyncAccount {
        var account = SyncAccount(server: (try row.decode(forColumn: "server")), user: (try row.decode(forColumn: "user")), device: (try row.decode(forColumn: "device")), api: (try row.decode(forColumn: "api")))
        account.subscriptionsSince = (try row.decode(forColumn: "subscriptionsSince"))
        account.actionsSince = (try row.decode(forColumn: "actionsSince"))
        account.clockOffset = (try row.decode(forColumn: "clockOffset"))
        account.lastSyncAt = ((try row.decode(forColumn: "lastSyncAt")) as Double?).map(Date.init(timeIntervalSince1970:))
        account.lastError = (try row.decode(forColumn: "lastError"))
        account.lastResult = (try row.decode(forColumn: "lastResult"))
        account.activatedAt = Date(timeIntervalSince1970: (try row.decode(forColumn: "activatedAt")))
        return account
    }
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
