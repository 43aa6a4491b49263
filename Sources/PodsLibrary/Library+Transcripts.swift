import Foundation
import GRDB

// MARK: - Transcripts

extension Library {
    /// The kept transcript of `episodeID` (its format and its cues as JSON),
    /// if it was fetched from `url`.
    public func transcript(_ episodeID: Int64, url: String) throws(LibraryError) -> (format: String, cuesJSON: String)? {
        try reading { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT format, cues FROM transcript WHERE episodeId = ? AND url = ?",
                                             arguments: [episodeID, url]) else { return nil }
            return (try row.decode(forColumn: "format"), try row.decode(forColumn: "cues"))
        }
    }

    /// Keeps `episodeID`'s transcript, replacing any other.
    public func saveTranscript(_ episodeID: Int64, url: String, format: String, cuesJSON: String) throws(LibraryError) {
        try writing { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM episode WHERE id = ?", arguments: [episodeID]) != nil else { return }
            try db.execute(sql: """
                INSERT INTO transcript (episodeId, url, format, cues, fetchedAt) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(episodeId) DO UPDATE SET url = excluded.url, format = excluded.format, cues = excluded.cues,
                    fetchedAt = excluded.fetchedAt
                """, arguments: [episodeID, url, format, cuesJSON, Date().timeIntervalSince1970])
        }
    }
}
