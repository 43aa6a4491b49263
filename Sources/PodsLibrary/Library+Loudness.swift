import Foundation
import GRDB

/// A whole downloaded file's loudness, as measured once.
public struct EpisodeLoudness: Sendable, Equatable {
    /// Integrated loudness, LUFS.
    public var integrated: Double
    /// The highest true peak, dBTP.
    public var truePeak: Double

    public init(integrated: Double, truePeak: Double) {
        (self.integrated, self.truePeak) = (integrated, truePeak)
    }

    /// Whether it is what a measurement may be (a row out of range is not read back).
    var isInRange: Bool { (-70.0...6.0).contains(integrated) && (-100.0...30.0).contains(truePeak) }
}

/// A downloaded file not measured yet.
public struct UnmeasuredDownload: Sendable, Equatable {
    public var episodeId: Int64
    public var podcastId: Int64
    /// The file's name in the media cache directory.
    public var fileName: String
    public var length: Int64
}

extension Library {
    /// The loudness kept for episode `id`'s download; nil when it was not
    /// measured, the file is not the one measured, or the row is out of range.
    public func episodeLoudness(_ id: Int64) throws(LibraryError) -> EpisodeLoudness? {
        try reading { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT l.integrated, l.truePeak FROM episodeLoudness l JOIN cachedMedia m USING (episodeId)
                WHERE l.episodeId = ? AND m.complete AND m.length = l.length
                """, arguments: [id]) else { return nil }
            let loudness = EpisodeLoudness(integrated: row[0], truePeak: row[1])
            return loudness.isInRange ? loudness : nil
        }
    }

    /// Every download's kept loudness, by episode (one read).
    public func measuredLoudness() throws(LibraryError) -> [Int64: EpisodeLoudness] {
        try reading { db in
            var measured: [Int64: EpisodeLoudness] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT l.episodeId, l.integrated, l.truePeak FROM episodeLoudness l JOIN cachedMedia m USING (episodeId)
                WHERE m.complete AND m.length = l.length
                """) {
                let loudness = EpisodeLoudness(integrated: row[1], truePeak: row[2])
                if loudness.isInRange { measured[row[0]] = loudness }
            }
            return measured
        }
    }

    /// Keeps the loudness measured for `download` (nothing when its cache
    /// record has gone or changed length since, or the figures are out of range).
    public func setEpisodeLoudness(_ loudness: EpisodeLoudness, for download: UnmeasuredDownload) throws(LibraryError) {
        guard loudness.isInRange else { return }
        try writing { db in
            try db.execute(sql: """
                INSERT INTO episodeLoudness (episodeId, integrated, truePeak, length)
                SELECT episodeId, ?, ?, length FROM cachedMedia WHERE episodeId = ? AND complete AND length = ?
                ON CONFLICT(episodeId) DO UPDATE SET integrated = excluded.integrated, truePeak = excluded.truePeak,
                    length = excluded.length
                """, arguments: [loudness.integrated, loudness.truePeak, download.episodeId, download.length])
        }
    }

    /// Complete downloads of `podcasts` with no measurement of their file,
    /// at most `limit`, the most recently used first, passing over the
    /// files in `excluding` (episode id and length: those that failed this
    /// run; filtered after the query, 32 failures stopped the survey for good:
    /// REVIEW-4, N14).
    public func unmeasuredDownloads(of podcasts: [Int64], limit: Int, excluding: Set<[Int64]> = []) throws(LibraryError)
        -> [UnmeasuredDownload] {
        guard !podcasts.isEmpty, limit > 0 else { return [] }
        let failed = "[" + excluding.filter { $0.count == 2 }.map { "[\($0[0]),\($0[1])]" }.joined(separator: ",") + "]"
        return try reading { db in
            try Row.fetchAll(db, sql: """
                SELECT m.episodeId, e.podcastId, m.fileName, m.length FROM cachedMedia m
                JOIN episode e ON e.id = m.episodeId
                LEFT JOIN episodeLoudness l ON l.episodeId = m.episodeId AND l.length = m.length
                WHERE m.complete AND l.episodeId IS NULL AND e.podcastId IN (\(podcasts.map { _ in "?" }.joined(separator: ",")))
                  AND NOT EXISTS (SELECT 1 FROM json_each(?) f WHERE f.value ->> 0 = m.episodeId AND f.value ->> 1 = m.length)
                ORDER BY m.lastAccess DESC LIMIT ?
                """, arguments: StatementArguments(podcasts.map { $0 as any DatabaseValueConvertible } + [failed, limit]))
                .map { row in UnmeasuredDownload(episodeId: row[0], podcastId: row[1], fileName: row[2], length: row[3]) }
        }
    }
}
