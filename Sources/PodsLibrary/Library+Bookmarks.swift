import Foundation
import GRDB
import PodsFeedParser

/// A moment the listener marked in an episode (`pods bookmark`): where,
/// what they noted, and the transcript's line there when one was cached.
public struct Bookmark: Sendable, Equatable, Identifiable {
    public var id: Int64
    public var episodeId: Int64
    /// Seconds into the episode.
    public var position: Double
    public var note: String
    /// The transcript's line at `position`, when the transcript was cached.
    public var cue: String?
    public var createdAt: Date
    public var episodeTitle: String
    public var podcastTitle: String
}

extension Library {
    /// The longest note kept, in characters; a longer one is refused.
    public static let bookmarkNoteLimit = 1_000
    /// The longest transcript line kept with a bookmark, in characters (the rest is cut).
    public static let bookmarkCueLimit = 500

    /// Marks `position` (seconds) in episode `episodeID`. A note longer than
    /// `bookmarkNoteLimit`, or a position that is not a time in an episode,
    /// is refused (nothing is written).
    @discardableResult
    public func addBookmark(episode episodeID: Int64, position: Double, note: String, cue: String? = nil,
                            at now: Date = Date()) throws(LibraryError) -> Bookmark {
        guard let position = MediaSeconds.checked(position) else {
            throw LibraryError(.invalid, "a bookmark's position is 0 to \(Int(MediaSeconds.maximum)) seconds")
        }
        let note = Self.oneLine(note)
        guard note.count <= Self.bookmarkNoteLimit else {
            throw LibraryError(.invalid, "a bookmark's note is at most \(Self.bookmarkNoteLimit) characters, not \(note.count)")
        }
        let cue = cue.map { String(Self.oneLine($0).prefix(Self.bookmarkCueLimit)) }
        return try writing { db in
            _ = try Self.episode(episodeID, db)
            try db.execute(sql: "INSERT INTO bookmark (episodeId, position, note, cue, createdAt) VALUES (?, ?, ?, ?, ?)",
                           arguments: [episodeID, position, note, cue, now.timeIntervalSince1970])
            return try Self.bookmark(db.lastInsertedRowID, db)
        }
    }

    /// Text as one printable line: line breaks and tabs become spaces, other
    /// control characters (a terminal's escape sequences) go. A note comes from
    /// any client on the bus, and `pods bookmarks` prints it to a terminal.
    static func oneLine(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\r" || scalar == "\t" {
                scalars.append(" ")
            } else if scalar.properties.generalCategory != .control {
                scalars.append(scalar)
            }
        }
        return String(scalars).trimmingCharacters(in: .whitespaces)
    }

    public func bookmark(_ id: Int64) throws(LibraryError) -> Bookmark {
        try reading { db in try Self.bookmark(id, db) }
    }

    /// Bookmarks oldest first (of `episode`, else of every episode), `limit` from `offset`.
    public func bookmarks(episode: Int64? = nil, offset: Int = 0, limit: Int) throws(LibraryError) -> [Bookmark] {
        try reading { db in
            if let episode { _ = try Self.episode(episode, db) }
            return try Row.fetchAll(db, sql: Self.bookmarkSelect + """
                 WHERE (? IS NULL OR bookmark.episodeId = ?) ORDER BY bookmark.id LIMIT ? OFFSET ?
                """, arguments: [episode, episode, max(0, limit), max(0, offset)]).map(Self.bookmark(from:))
        }
    }

    public func deleteBookmark(_ id: Int64) throws(LibraryError) {
        try writing { db in
            try db.execute(sql: "DELETE FROM bookmark WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw LibraryError(.notFound, "no bookmark \(id)") }
        }
    }

    private static let bookmarkSelect = """
        SELECT bookmark.*, episode.title AS episodeTitle, podcast.title AS podcastTitle FROM bookmark
            JOIN episode ON episode.id = bookmark.episodeId JOIN podcast ON podcast.id = episode.podcastId
        """

    private static func bookmark(_ id: Int64, _ db: Database) throws -> Bookmark {
        guard let row = try Row.fetchOne(db, sql: bookmarkSelect + " WHERE bookmark.id = ?", arguments: [id]) else {
            throw LibraryError(.notFound, "no bookmark \(id)")
        }
        return bookmark(from: row)
    }

    private static func bookmark(from row: Row) -> Bookmark {
        Bookmark(id: row["id"], episodeId: row["episodeId"], position: row["position"], note: row["note"], cue: row["cue"],
                 createdAt: Date(timeIntervalSince1970: row["createdAt"]), episodeTitle: row["episodeTitle"] ?? "",
                 podcastTitle: row["podcastTitle"] ?? "")
    }
}
