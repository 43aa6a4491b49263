import Foundation
import GRDB
import PodsChapters

/// A chapter list read once and kept: from a `podcast:chapters` file, or
/// from the media file's own tags.
public struct StoredChapterList: Sendable, Equatable {
    /// Where the list came from: the JSON file's URL or the enclosure's.
    public var url: String
    public var chapters: [EpisodeChapter]
    /// Why the list could not be read (kept so a broken file is not fetched at every play).
    public var error: String?
    public var fetchedAt: Date

    public init(url: String, chapters: [EpisodeChapter], error: String? = nil, fetchedAt: Date = Date()) {
        self.url = url
        self.chapters = chapters
        self.error = error
        self.fetchedAt = fetchedAt
    }
}

/// Which of an episode's kept chapter lists.
public enum ChapterListKind: String, Sendable {
    /// The feed's `podcast:chapters` file.
    case json
    /// The media file's ID3, MP4 or Vorbis chapters.
    case media
}

// MARK: - Chapter lists

extension Library {
    /// The kept list of `kind` for `episodeID`, if it was read from `url`
    /// (a list from another URL is stale).
    public func chapterList(_ episodeID: Int64, _ kind: ChapterListKind, url: String) throws(LibraryError) -> StoredChapterList? {
        try reading { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT url, chapters, error, fetchedAt FROM chapterList WHERE episodeId = ? AND kind = ? AND url = ?
                """, arguments: [episodeID, kind.rawValue, url]) else { return nil }
            let text: String = try row.decode(forColumn: "chapters")
            // A row this version cannot read is as good as none: it is read again.
            guard let chapters = try? JSONDecoder().decode([EpisodeChapter].self, from: Data(text.utf8)) else { return nil }
            return StoredChapterList(url: try row.decode(forColumn: "url"), chapters: chapters, error: try row.decode(forColumn: "error"),
                                     fetchedAt: Date(timeIntervalSince1970: try row.decode(forColumn: "fetchedAt")))
        }
    }

    /// Forgets `episodeID`'s list of `kind`: it is read again when next asked for.
    public func deleteChapterList(_ episodeID: Int64, _ kind: ChapterListKind) throws(LibraryError) {
        try writing { db in
            try db.execute(sql: "DELETE FROM chapterList WHERE episodeId = ? AND kind = ?", arguments: [episodeID, kind.rawValue])
        }
    }

    /// Keeps `list` as `episodeID`'s list of `kind`, replacing any other.
    public func saveChapterList(_ episodeID: Int64, _ kind: ChapterListKind, _ list: StoredChapterList) throws(LibraryError) {
        var stripped = list.chapters
        for index in stripped.indices { stripped[index].embeddedImage = nil }  // images live in files
        let text = (try? JSONEncoder().encode(stripped)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        try writing { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM episode WHERE id = ?", arguments: [episodeID]) != nil else { return }
            try db.execute(sql: """
                INSERT INTO chapterList (episodeId, kind, url, chapters, error, fetchedAt) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(episodeId, kind) DO UPDATE SET url = excluded.url, chapters = excluded.chapters,
                    error = excluded.error, fetchedAt = excluded.fetchedAt
                """, arguments: [episodeID, kind.rawValue, list.url, text, list.error, list.fetchedAt.timeIntervalSince1970])
        }
    }
}
