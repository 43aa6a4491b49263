import Foundation
import GRDB
import PodsFeedParser

/// Where and when playback last paused: what smart rewind reads when it
/// plays again (kept in the library, so a pause before a restart counts).
public struct PausePoint: Sendable, Equatable {
    public var episodeId: Int64
    /// Seconds into the episode.
    public var position: Double
    public var at: Date

    public init(episodeId: Int64, position: Double, at: Date) {
        (self.episodeId, self.position, self.at) = (episodeId, position, at)
    }
}

extension Library {
    /// Keeps `pause` as the last one (a position no episode has is not kept).
    public func notePause(_ pause: PausePoint) throws(LibraryError) {
        guard let position = MediaSeconds.checked(pause.position), pause.at.timeIntervalSince1970.isFinite else { return }
        try writing { db in
            try db.execute(sql: """
                INSERT INTO setting (key, value) VALUES ('lastPause', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value
                """, arguments: ["\(pause.episodeId) \(position) \(pause.at.timeIntervalSince1970)"])
        }
    }

    /// The last pause kept; nil when none is, or it does not read back.
    public func lastPause() throws(LibraryError) -> PausePoint? {
        try reading { db in
            guard let text = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'lastPause'") else { return nil }
            let parts = text.split(separator: " ")
            guard parts.count == 3, let episode = Int64(parts[0]), let position = MediaSeconds.checked(Double(parts[1])),
                  let at = Double(parts[2]), at.isFinite else { return nil }
            return PausePoint(episodeId: episode, position: position, at: Date(timeIntervalSince1970: at))
        }
    }
}
