import Foundation
import GRDB

/// What a podcast's rules read of an episode that just arrived.
public struct ArrivedEpisode: Sendable {
    /// 0 while it is judged before it is stored (`ArrivalRule`).
    public var id: Int64
    public var podcastId: Int64
    public var title: String
    public var duration: Double?
    /// `itunes:episodeType`; nil when the feed gave none.
    public var episodeType: String?
}

/// A podcast's rule for what arrives (nil for a new subscription), judged
/// as a feed is prepared, so that an episode it ignores is stored ignored
/// in the same transaction that adds it and no follower of the library
/// ever sees it new: the predicate says which new items to ignore, nil
/// when the podcast ignores nothing.
public typealias ArrivalRule = @Sendable (_ podcastId: Int64?) -> ((ArrivedEpisode) -> Bool)?

/// What retention reads of a downloaded episode.
public struct DownloadedEpisode: Sendable, Equatable {
    public var id: Int64
    public var podcastId: Int64
    public var published: Date?
    public var completed: Bool
    /// When it was last played, else when it was marked.
    public var playedAt: Date?
    public var queued: Bool
    /// Downloaded because the listener asked for it (not by auto-download).
    public var byHand: Bool
    /// Still in its feed (one that left it lives on only while something, its download too, keeps it).
    public var inFeed: Bool = true
}

extension Library {
    // MARK: - Ignoring episodes

    /// Judges the episodes that arrived since the rules last ran: each one
    /// still untouched (not played, marked, queued or loaded) that `ignore`
    /// answers true for is ignored: marked played, with no sync action (the
    /// sync never hears of it). Returns those ignored. The episodes that
    /// were here before the rules ran once are never judged. `ignore` nil
    /// (no rule could ignore any): the arrivals are judged kept, unread.
    @discardableResult
    public func judgeArrivedEpisodes(_ ignore: ((ArrivedEpisode) -> Bool)?) throws(LibraryError) -> [ArrivedEpisode] {
        // Read, judged with no transaction open (a title pattern's cost, bounded as it is, holds no
        // writer: REVIEW-4, N11), then written for what still holds: an episode played or queued
        // meanwhile is left as it is, and a judge that ran meanwhile leaves this one nothing to do.
        let untouched = "ignored = 0 AND NOT completed AND position = 0 AND NOT currentlyPlaying AND id NOT IN (SELECT episodeId FROM queueItem)"
        let (mark, last, arrived) = try reading { db in
            let mark = try Int64.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM setting WHERE key = 'rulesJudgedUpTo'") ?? 0
            let last = try Int64.fetchOne(db, sql: "SELECT max(id) FROM episode") ?? mark
            guard last > mark, ignore != nil else { return (mark, last, [ArrivedEpisode]()) }
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, podcastId, title, duration, episodeType FROM episode WHERE id > ? AND id <= ? AND \(untouched)
                """, arguments: [mark, last])
            return (mark, last, try rows.map { row in
                ArrivedEpisode(id: row["id"], podcastId: row["podcastId"], title: row["title"] ?? "", duration: try row.storedSeconds("duration"),
                               episodeType: row["episodeType"])
            })
        }
        guard last > mark else { return [] }
        let judged = ignore.map { ignore in arrived.filter(ignore) } ?? []
        return try writing { db in
            let now = try Int64.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM setting WHERE key = 'rulesJudgedUpTo'") ?? 0
            guard now == mark else { return [] }
            var ignored: [ArrivedEpisode] = []
            let update = try db.cachedStatement(sql: "UPDATE episode SET completed = 1, ignored = 1 WHERE id = ? AND \(untouched)")
            for episode in judged {
                try update.execute(arguments: [episode.id])
                if db.changesCount > 0 { ignored.append(episode) }
            }
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES ('rulesJudgedUpTo', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           arguments: [String(last)])
            return ignored
        }
    }

    /// Whether the rules ignored `episodeID` (and the listener has not played or marked it since).
    public func isIgnored(_ episodeID: Int64) throws(LibraryError) -> Bool {
        try reading { db in try Int.fetchOne(db, sql: "SELECT ignored FROM episode WHERE id = ?", arguments: [episodeID]) == 1 }
    }

    // MARK: - Downloads by hand, and retention

    /// Pins (or unpins) the download of `episodeID` as the listener's own: retention never deletes it.
    public func setDownloadPinned(_ episodeID: Int64, _ pinned: Bool) throws(LibraryError) {
        try writing { db in
            if pinned {
                try db.execute(sql: "INSERT OR IGNORE INTO downloadPin (episodeId) VALUES (?)", arguments: [episodeID])
            } else {
                try db.execute(sql: "DELETE FROM downloadPin WHERE episodeId = ?", arguments: [episodeID])
            }
        }
    }

    public func isDownloadPinned(_ episodeID: Int64) throws(LibraryError) -> Bool {
        try reading { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM downloadPin WHERE episodeId = ?", arguments: [episodeID]) ?? false }
    }

    /// Every episode downloaded or being downloaded (the cache keeps it), and those in `alsoWaiting` (downloads not begun).
    public func downloadedEpisodes(alsoWaiting: [Int64] = []) throws(LibraryError) -> [DownloadedEpisode] {
        let waiting = Self.jsonArray(alsoWaiting)
        return try reading { db in
            try Row.fetchAll(db, sql: """
                SELECT id, podcastId, published, completed, coalesce(lastPlayedAt, changedAt) AS playedAt,
                       id IN (SELECT episodeId FROM queueItem) AS queued, id IN (SELECT episodeId FROM downloadPin) AS byHand, inFeed
                FROM episode
                WHERE id IN (SELECT episodeId FROM cachedMedia WHERE pinned) OR id IN (SELECT value FROM json_each(?))
                """, arguments: [waiting]).map { row in
                DownloadedEpisode(id: row["id"], podcastId: row["podcastId"],
                                  published: (row["published"] as Double?).map(Date.init(timeIntervalSince1970:)),
                                  completed: row["completed"], playedAt: (row["playedAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
                                  queued: row["queued"], byHand: row["byHand"], inFeed: row["inFeed"])
            }
        }
    }
}
