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
        // The cue is cut before it is read whole: its characters may be of any size.
        let cue = cue.map { cue in
            let read = String(String.UnicodeScalarView(cue.unicodeScalars.prefix(Self.bookmarkCueLimit * Self.bytesPerCharacter / 4)))
            return String(Self.oneLine(read).prefix(Self.bookmarkCueLimit))
        }
        let note = Self.oneLine(note)
        guard Self.fits(note, Self.bookmarkNoteLimit) else {
            throw LibraryError(.invalid, "a bookmark's note is at most \(Self.bookmarkNoteLimit) characters")
        }
        return try writing { db in
            _ = try Self.episode(episodeID, db)
            try db.execute(sql: "INSERT INTO bookmark (episodeId, position, note, cue, createdAt) VALUES (?, ?, ?, ?, ?)",
                           arguments: [episodeID, position, note, cue, now.timeIntervalSince1970])
            return try Self.bookmark(db.lastInsertedRowID, db)
        }
    }

    /// Text as one printable line: line breaks (and U+0085, U+2028, U+2029)
    /// and tabs become spaces; other control characters (a terminal's escape
    /// sequences), bidi overrides and isolates, and invisible zero-width
    /// characters go (ADVERSARIAL-5, 8: an RLO reordered what `pods
    /// bookmarks` showed after it). The joiners emoji are made with stay. A
    /// note or a name comes from any client on the bus, and is shown on
    /// terminals and in the desktop's media menu.
    static func oneLine(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D, 0x85, 0x2028, 0x2029: scalars.append(" ")
            case 0x061C, 0x200B, 0x200E, 0x200F, 0x202A...0x202E, 0x2060, 0x2066...0x2069, 0xFEFF: continue
            default: if scalar.properties.generalCategory != .control { scalars.append(scalar) }
            }
        }
        return String(scalars).trimmingCharacters(in: .whitespaces)
    }

    /// The most UTF-8 bytes a character of a note or name may average: room
    /// for emoji sequences (a family is 25 bytes), none for one "character"
    /// of a letter and millions of combining marks (ADVERSARIAL-5, 6: one
    /// such character was 8 MB, and twenty grew the library by 160 MB).
    static let bytesPerCharacter = 32

    /// Whether `text` is at most `characters` characters, and bytes in proportion.
    static func fits(_ text: String, _ characters: Int) -> Bool {
        text.utf8.count <= characters * bytesPerCharacter && text.count <= characters
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
                """, arguments: [episode, episode, max(0, limit), max(0, offset)]).map { try Self.bookmark(from: $0) }
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
        return try bookmark(from: row)
    }

    private static func bookmark(from row: Row) throws -> Bookmark {
        Bookmark(id: row["id"], episodeId: row["episodeId"], position: try row.storedSeconds("position") ?? 0, note: row["note"], cue: row["cue"],
                 createdAt: try row.storedDate("createdAt") ?? Date(timeIntervalSince1970: 0), episodeTitle: row["episodeTitle"] ?? "",
                 podcastTitle: row["podcastTitle"] ?? "")
    }
}
