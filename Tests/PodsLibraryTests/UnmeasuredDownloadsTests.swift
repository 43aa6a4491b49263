import Foundation
import GRDB
@testable import PodsLibrary
import PodsTestSupport
import Testing

/// Which downloads the loudness survey measures next: the files that failed
/// this run are passed over in the query itself, so more than a batch of
/// failures never hides the rest (REVIEW-4, N14: after 32 failed files every
/// batch filtered down to nothing, and the survey stopped).
@Suite struct UnmeasuredDownloadsTests {
    @Test func failedFilesArePassedOverInTheQuery() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let podcast = try library.subscribe(feedURL: "https://example.org/feed", feed: FeedFixtures.feed((1...40).map { "g\($0)" }),
                                            etag: nil, lastModified: nil)
        let episodes = try library.episodes(podcastId: podcast.id).map(\.id)
        try library.database.write { db in
            for (index, id) in episodes.enumerated() {
                try db.execute(sql: """
                    INSERT INTO cachedMedia (episodeId, url, fileName, length, validatedAt, lastAccess, complete, pinned)
                    VALUES (?, ?, ?, 1000, 0, ?, 1, 1)
                    """, arguments: [id, "https://example.org/\(id).mp3", "\(id).mp3", Double(index)])
            }
        }
        let first = try library.unmeasuredDownloads(of: [podcast.id], limit: 32)
        #expect(first.count == 32)
        let failed = Set(first.map { [$0.episodeId, $0.length] })
        let next = try library.unmeasuredDownloads(of: [podcast.id], limit: 32, excluding: failed)
        #expect(next.count == 8 && Set(next.map(\.episodeId)).isDisjoint(with: first.map(\.episodeId)))
        // A file that changed since it failed (another length) is tried again.
        let changed = Set(first.map { [$0.episodeId, $0.length + 1] })
        #expect(try library.unmeasuredDownloads(of: [podcast.id], limit: 32, excluding: changed).count == 32)
    }
}
