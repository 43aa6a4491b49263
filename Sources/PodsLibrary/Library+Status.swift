import Foundation
import PodsFeedParser
import GRDB

// MARK: - Listening status

extension Library {
    /// The episode the player has loaded, if any.
    public func currentEpisode() throws(LibraryError) -> LibraryEpisode? {
        try reading { db in
            try Row.fetchOne(db, sql: Self.episodeSelect + " WHERE episode.currentlyPlaying").map(Self.episode(from:))
        }
    }

    /// Makes `id` the one currently-playing episode. A completed episode
    /// starts again from 0 (and is no longer completed). Returns it.
    @discardableResult
    public func startPlaying(_ id: Int64, at now: Date = Date()) throws(LibraryError) -> LibraryEpisode {
        try writing { db in
            _ = try Self.episode(id, db)
            try db.execute(sql: "UPDATE episode SET currentlyPlaying = 0 WHERE currentlyPlaying AND id != ?", arguments: [id])
            try db.execute(sql: """
                UPDATE episode SET currentlyPlaying = 1, lastPlayedAt = ?,
                    position = CASE WHEN completed THEN 0 ELSE position END, completed = 0,
                    ignored = CASE WHEN ignored = 1 THEN 2 ELSE ignored END
                WHERE id = ?
                """, arguments: [now.timeIntervalSince1970, id])
            try db.execute(sql: "DELETE FROM queueItem WHERE episodeId = ?", arguments: [id])
            return try Self.episode(id, db)
        }
    }

    /// Makes `id` the currently-playing episode again (nil: none), changing
    /// nothing else of it: what a play that failed gives back.
    public func makeCurrent(_ id: Int64?) throws(LibraryError) {
        try writing { db in
            try db.execute(sql: "UPDATE episode SET currentlyPlaying = 0 WHERE currentlyPlaying AND id IS NOT ?", arguments: [id])
            if let id { try db.execute(sql: "UPDATE episode SET currentlyPlaying = 1 WHERE id = ?", arguments: [id]) }
        }
    }

    /// Saves where the listener is in `id` (seconds); `completed` also sets
    /// or clears its played mark (nil leaves it).
    public func saveProgress(_ id: Int64, position: Double, completed: Bool? = nil, at now: Date = Date()) throws(LibraryError) {
        guard position.isFinite else { return }
        try writing { db in
            try db.execute(sql: "UPDATE episode SET position = ?, lastPlayedAt = ? WHERE id = ?",
                           arguments: [max(0, position), now.timeIntervalSince1970, id])
            // Only a mark that changes is a change of status (the progress itself comes every second).
            if let completed {
                try db.execute(sql: "UPDATE episode SET completed = ? WHERE id = ? AND completed != ?", arguments: [completed, id, completed])
            }
        }
    }

    /// Marks `id` played (completed, position 0) or unplayed, and queues
    /// the change for the sync server.
    public func markCompleted(_ id: Int64, _ completed: Bool, at now: Date = Date()) throws(LibraryError) {
        try writing { db in
            let episode = try Self.episode(id, db)
            // An episode the rules ignored is the listener's once they mark it: the rules never judge it again.
            try db.execute(sql: "UPDATE episode SET completed = ?, position = 0, ignored = CASE WHEN ignored = 1 THEN 2 ELSE ignored END WHERE id = ?",
                           arguments: [completed, id])
            if completed {
                try Self.recordListening(id, started: nil, total: nil, at: now, db)
            } else {
                try Self.queue(id, "new", total: MediaSeconds.whole(episode.episode.duration), at: now, db)
            }
        }
    }

    /// Nothing is playing any more (the player was given something else).
    public func clearCurrentEpisode() throws(LibraryError) {
        try writing { db in try db.execute(sql: "UPDATE episode SET currentlyPlaying = 0 WHERE currentlyPlaying") }
    }

    /// What plays after `id` ends: the active playlist's next episode (none
    /// after its last), else the head of the queue, else the next newer
    /// episode of the same podcast that is not completed.
    public func nextEpisode(after id: Int64) throws(LibraryError) -> LibraryEpisode? {
        try reading { db in
            if let playlist = try Self.activePlaylist(db), playlist != QueuePlaylist.id {
                return try Self.nextInPlaylist(playlist, after: id, db).map { next in try Self.episode(next, db) }
            }
            if let queued = try Int64.fetchOne(db, sql: "SELECT episodeId FROM queueItem WHERE episodeId != ? ORDER BY rank LIMIT 1",
                                                arguments: [id]) {
                return try Self.episode(queued, db)
            }
            let current = try Self.episode(id, db)
            guard let published = current.episode.published else { return nil }
            return try Row.fetchOne(db, sql: Self.episodeSelect + """
                 WHERE episode.podcastId = ? AND episode.published > ? AND NOT episode.completed
                 ORDER BY episode.published, episode.id DESC LIMIT 1
                """, arguments: [current.podcastId, published.timeIntervalSince1970]).map(Self.episode(from:))
        }
    }

    /// The episode played most recently before `id` (by when it was last
    /// played), for `Previous` when this run has no history.
    public func previouslyPlayedEpisode(before id: Int64) throws(LibraryError) -> LibraryEpisode? {
        try reading { db in
            let current = try Self.episode(id, db)
            let since = current.lastPlayedAt?.timeIntervalSince1970 ?? .greatestFiniteMagnitude
            return try Row.fetchOne(db, sql: Self.episodeSelect + """
                 WHERE episode.id != ? AND episode.lastPlayedAt IS NOT NULL AND episode.lastPlayedAt <= ?
                 ORDER BY episode.lastPlayedAt DESC LIMIT 1
                """, arguments: [id, since]).map(Self.episode(from:))
        }
    }
}
