import Foundation
import GRDB
import PodsFeedParser

/// One stretch of listening: an episode heard from `from` to `to` (seconds
/// into it) at `rate`, over `seconds` of wall time. A pause, a seek, a
/// change of speed or of episode ends one; trimmed silence does not.
public struct PlaySession: Sendable, Equatable {
    public var episodeId: Int64
    public var podcastId: Int64
    public var episodeTitle: String
    public var podcastTitle: String
    public var startedAt: Date
    /// Wall-clock seconds heard.
    public var seconds: Double
    public var from: Double
    public var to: Double
    public var rate: Double

    public init(episodeId: Int64, podcastId: Int64, episodeTitle: String, podcastTitle: String, startedAt: Date,
                seconds: Double, from: Double, to: Double, rate: Double) {
        self.episodeId = episodeId
        self.podcastId = podcastId
        self.episodeTitle = episodeTitle
        self.podcastTitle = podcastTitle
        self.startedAt = startedAt
        self.seconds = seconds
        self.from = from
        self.to = to
        self.rate = rate
    }

    /// Seconds the speed saved: what the stretch would have taken at 1× less what it took (negative below 1×).
    public var savedBySpeed: Double { seconds * (rate - 1) }
    /// Seconds trimmed silence saved: the part of the episode covered that speed does not explain.
    public var savedByTrimming: Double { max(0, (to - from) - seconds * rate) / rate }
}

/// What `pods stats` shows: hours heard and saved, by podcast and by week.
public struct ListeningStats: Sendable, Equatable {
    /// Heard (and saved) within one podcast or one week.
    public struct Share: Sendable, Equatable {
        /// The podcast's title, or the week's Monday as `2026-11-23` (local time).
        public var name: String
        /// The podcast's id; nil for a week.
        public var podcastId: Int64?
        public var seconds: Double
        public var saved: Double
    }

    public var seconds: Double = 0
    public var savedBySpeed: Double = 0
    public var savedByTrimming: Double = 0
    public var sessions: Int = 0
    /// Most heard first, at most `ListeningStats.maximumShares`.
    public var podcasts: [Share] = []
    /// Oldest first, the latest `ListeningStats.maximumShares` weeks.
    public var weeks: [Share] = []

    /// The most podcasts and weeks one answer lists (ten years of weeks).
    public static let maximumShares = 520
}

extension Library {
    /// Keeps `session`, or (the same `startedAt`) extends the one kept
    /// before: a stretch still playing is written every half minute, so a
    /// kill loses less. A later write never shortens it. Values no stretch
    /// can have are refused.
    public func keepPlaySession(_ session: PlaySession) throws(LibraryError) {
        guard MediaSeconds.checked(session.from) != nil, MediaSeconds.checked(session.to) != nil,
              MediaSeconds.checked(session.seconds) != nil, session.rate.isFinite, session.rate > 0, session.rate <= 16,
              session.startedAt.timeIntervalSince1970.isFinite else {
            throw LibraryError(.invalid, "a play session's times are out of range")
        }
        try writing { db in
            try db.execute(sql: """
                INSERT INTO playSession (episodeId, podcastId, episodeTitle, podcastTitle, startedAt, seconds, fromPosition,
                                         toPosition, rate)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(startedAt) DO UPDATE SET seconds = excluded.seconds, toPosition = excluded.toPosition
                WHERE excluded.seconds >= playSession.seconds
                """, arguments: [session.episodeId, session.podcastId, session.episodeTitle, session.podcastTitle,
                                 session.startedAt.timeIntervalSince1970, session.seconds, session.from, session.to, session.rate])
        }
    }

    /// Play sessions oldest first, from `since` on, `limit` from `offset`.
    public func playSessions(since: Date?, offset: Int = 0, limit: Int) throws(LibraryError) -> [PlaySession] {
        try reading { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM playSession WHERE startedAt >= ? ORDER BY startedAt LIMIT ? OFFSET ?
                """, arguments: [Self.start(since), max(0, limit), max(0, offset)]).map { row in
                try PlaySession(episodeId: row["episodeId"], podcastId: row["podcastId"], episodeTitle: row["episodeTitle"],
                                podcastTitle: row["podcastTitle"], startedAt: row.storedDate("startedAt") ?? Date(timeIntervalSince1970: 0),
                                seconds: row.storedSeconds("seconds") ?? 0, from: row.storedSeconds("fromPosition") ?? 0,
                                to: row.storedSeconds("toPosition") ?? 0, rate: row["rate"])
            }
        }
    }

    /// Seconds heard and saved from `since` on, in all, by podcast and by
    /// week (weeks start on Monday, in podsd's time zone).
    public func listeningStats(since: Date?) throws(LibraryError) -> ListeningStats {
        let saved = "seconds * (rate - 1) + max(0, (toPosition - fromPosition) - seconds * rate) / rate"
        return try reading { db in
            var stats = ListeningStats()
            let start = Self.start(since)
            if let row = try Row.fetchOne(db, sql: """
                SELECT total(seconds) AS heard, total(seconds * (rate - 1)) AS speed,
                       total(max(0, (toPosition - fromPosition) - seconds * rate) / rate) AS trimmed, count(*) AS sessions
                FROM playSession WHERE startedAt >= ?
                """, arguments: [start]) {
                stats.seconds = row["heard"]
                stats.savedBySpeed = row["speed"]
                stats.savedByTrimming = row["trimmed"]
                stats.sessions = row["sessions"]
            }
            stats.podcasts = try Row.fetchAll(db, sql: """
                SELECT podcastId, coalesce((SELECT title FROM podcast WHERE podcast.id = podcastId), max(podcastTitle)) AS name,
                       total(seconds) AS heard, total(\(saved)) AS saved
                FROM playSession WHERE startedAt >= ? GROUP BY podcastId ORDER BY heard DESC, podcastId LIMIT ?
                """, arguments: [start, ListeningStats.maximumShares]).map { row in
                ListeningStats.Share(name: row["name"], podcastId: row["podcastId"], seconds: row["heard"], saved: row["saved"])
            }
            stats.weeks = try Row.fetchAll(db, sql: """
                SELECT date(startedAt, 'unixepoch', 'localtime', 'weekday 0', '-6 days') AS week,
                       total(seconds) AS heard, total(\(saved)) AS saved
                FROM playSession WHERE startedAt >= ? GROUP BY week ORDER BY week DESC LIMIT ?
                """, arguments: [start, ListeningStats.maximumShares]).reversed().map { row in
                ListeningStats.Share(name: row["week"], podcastId: nil, seconds: row["heard"], saved: row["saved"])
            }
            return stats
        }
    }

    private static func start(_ since: Date?) -> Double {
        let seconds = since?.timeIntervalSince1970 ?? 0
        return seconds.isFinite ? seconds : 0
    }
}
