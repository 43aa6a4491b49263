import Foundation
import GRDB
@testable import PodsFeedParser
@testable import PodsLibrary
import PodsTestSupport
import Testing

@Suite(.timeLimit(.minutes(10))) struct LibraryMigrationTests {
    /// A library written before the parser checked times and before the URL
    /// policy (REVIEW-3, N3): an itunes:duration of 1e23 trapped podsd at
    /// every start after an unclean exit, and `file:` URLs a web feed once
    /// named were still read. v11 clears both for web podcasts, keeps a local
    /// podcast's files, and makes every item parse again; a time that comes
    /// back from the library unchecked is checked again where it becomes an Int.
    @Test func v11ClearsTimesNoEpisodeHasAndWebPodcastsFileURLs() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let old = try Library(directory: directory, migratingUpTo: "v10: item fingerprints")
            try old.database.write { db in
                try db.execute(sql: """
                    INSERT INTO podcast (id, feedURL, title, subscribedAt, artworkURL) VALUES
                        (1, 'https://example.org/feed', 'Web', 0, 'file:///etc/passwd'),
                        (2, 'file:///home/u/feed.xml', 'Local', 0, 'file:///home/u/art.png');
                    """)
                for (id, podcast) in [(1, 1), (2, 2)] {
                    try db.execute(sql: """
                        INSERT INTO episode (id, podcastId, guid, title, duration, position, artworkURL, chaptersURL, transcriptURL,
                            link, enclosures, feedOrder, itemHash, contentHash)
                        VALUES (?, ?, ?, 'E', 1e23, 1e300, 'file:///a.png', 'file:///c.json', 'file:///t.srt', 'file:///l',
                            '[{"url":"file:///x.mp3","type":"audio/mpeg","length":1}]', 0, 7, 0)
                        """, arguments: [id, podcast, "g\(id)"])
                    try db.execute(sql: "INSERT INTO episodeDetail (episodeId, description, chapters, persons) VALUES (?, '', '[]', '[]')",
                                   arguments: [id])
                    try db.execute(sql: """
                        INSERT INTO transcript (episodeId, url, format, cues, fetchedAt) VALUES (?, 'file:///t.srt', 'srt', '[]', 0)
                        """, arguments: [id])
                }
            }
        }
        let library = try Library(directory: directory)
        let web = try library.episode(1), local = try library.episode(2)
        #expect(web.episode.duration == nil && web.position == 0)
        #expect(web.episode.artworkURL == nil && web.episode.chaptersURL == nil && web.episode.transcriptURL == nil)
        #expect(web.episode.enclosures.isEmpty && web.podcastArtworkURL == nil)
        #expect(try library.transcript(1, url: "file:///t.srt") == nil)
        #expect(local.episode.artworkURL == "file:///a.png" && local.episode.enclosures.first?.url == "file:///x.mp3")
        #expect(try library.transcript(2, url: "file:///t.srt") != nil)
        #expect(local.episode.duration == nil, "a time no episode has goes whatever the podcast")
        let hashes = try library.database.read { db in try Int.fetchAll(db, sql: "SELECT count(*) FROM episode WHERE itemHash IS NOT NULL") }
        #expect(hashes == [0], "every item parses again")
        // Written again by some path that does not check: recording the listening checks it where it becomes an Int.
        try library.database.write { db in try db.execute(sql: "UPDATE episode SET duration = 1e23, position = 1e300 WHERE id = 1") }
        try library.recordListening(1, started: nil, total: nil)
    }

    /// A library written before v4 (descriptions twice in `episode`, no
    /// content hashes) opens with everything as it was, and a refresh with the
    /// same feed finds nothing changed: the migration's hashes are the ones a
    /// refresh computes.
    @Test func aV3LibraryKeepsEveryEpisodeAndItsStatus() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var feed = Feed()
        feed.title = "Old Show"
        feed.episodes = (1...3).map { number in
            var episode = Episode()
            episode.guid = "old-\(number)"
            episode.title = "Old \(number)"
            episode.descriptionHTML = "<p>Episode <b>\(number)</b> &amp; more</p>"
            if number == 3 { episode.description = "A plain summary" }  // the others read as their HTML
            episode.published = Date(timeIntervalSince1970: Double(1_700_000_000 + number * 86_400))
            episode.duration = 1800
            episode.enclosures = [Enclosure(url: "https://cdn.example.org/\(number).mp3", type: "audio/mpeg", length: 1000)]
            episode.chapters = [Chapter(start: 0, title: "Intro", url: nil, image: nil)]
            episode.persons = [Person(name: "Host", role: "host", group: nil, url: "https://example.org/host", image: nil)]
            return episode
        }
        do {
            let old = try Library(directory: directory, migratingUpTo: "v3: media cache, artwork, auto-download")
            try old.database.write { db in
                try db.execute(sql: "INSERT INTO podcast (feedURL, title, subscribedAt) VALUES ('https://example.org/feed', 'Old Show', 0)")
                let encoder = JSONEncoder()  // as v3 stored them: slashes escaped
                for (order, episode) in feed.episodes.enumerated() {
                    try db.execute(sql: """
                        INSERT INTO episode (podcastId, guid, title, description, descriptionHTML, published, duration,
                            enclosures, chapters, persons, feedOrder, position)
                        VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [
                            episode.guid, episode.title, episode.description, episode.descriptionHTML,
                            episode.published?.timeIntervalSince1970, episode.duration,
                            String(decoding: try encoder.encode(episode.enclosures.map(OldEnclosure.init)), as: UTF8.self),
                            String(decoding: try encoder.encode(episode.chapters.map(OldChapter.init)), as: UTF8.self),
                            String(decoding: try encoder.encode(episode.persons.map(OldPerson.init)), as: UTF8.self),
                            order, order == 1 ? 42.0 : 0.0,
                        ])
                }
            }
        }
        let library = try Library(directory: directory)
        #expect(try library.integrityCheck() == "ok")
        let stored = try library.episodes(podcastId: 1)
        #expect(stored.map(\.episode) == feed.episodes.reversed())
        #expect(stored.first { $0.episode.guid == "old-2" }?.position == 42)
        #expect(try library.episodes(EpisodeFilter(), after: nil, limit: 10).map(\.guid) == ["old-3", "old-2", "old-1"])
        let summary = try library.applyRefresh(1, feed: feed, etag: nil, lastModified: nil)
        #expect((summary.added, summary.updated, summary.removed) == (0, 0, 0))
        // Descriptions that the HTML reads as are stored once; a plain summary of its own stays.
        let descriptions = try library.database.read { db in
            try String.fetchAll(db, sql: "SELECT description FROM episodeDetail ORDER BY episodeId")
        }
        #expect(descriptions == ["", "", "A plain summary"])
    }

    /// A library whose content hashes are of the first form (FNV-1a): the
    /// migration makes them again, so a refresh with the same feed changes
    /// nothing and writes nothing.
    @Test func aV8LibrarysHashesAreMadeAgain() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var feed = Feed()
        feed.title = "Show"
        feed.episodes = (1...3).map { number in
            var episode = Episode()
            episode.guid = "g-\(number)"
            episode.title = "Episode \(number)"
            episode.descriptionHTML = "<p>Notes for <b>\(number)</b></p>"
            if number == 2 { episode.description = "A plain summary" }
            episode.enclosures = [Enclosure(url: "https://cdn.example.org/\(number).mp3", type: "audio/mpeg", length: 1000)]
            return episode
        }
        do {
            // Stored by today's code, then taken back to v8: the later migrations undone,
            // hashes of another form.
            let old = try Library(directory: directory)
            _ = try old.subscribe(feedURL: "https://example.org/feed", feed: feed, etag: nil, lastModified: nil)
            try old.database.write { db in
                try db.execute(sql: "ALTER TABLE episode DROP COLUMN itemHash")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v9:%' OR identifier LIKE 'v10:%'")
                try db.execute(sql: "UPDATE episode SET contentHash = id * 7919")  // not this form's
            }
        }
        let library = try Library(directory: directory)
        let summary = try library.applyRefresh(1, feed: feed, etag: nil, lastModified: nil)
        #expect((summary.added, summary.updated, summary.removed) == (0, 0, 0))
        var changed = feed
        changed.episodes[1].title += " (corrected)"
        #expect(try library.applyRefresh(1, feed: changed, etag: nil, lastModified: nil).updated == 1)
    }

    /// A library from before rules (REVIEW-4, N8): every download it holds
    /// (the cache's `pinned`, whole or still coming) was the listener's, so
    /// v15 pins each apart from auto-downloads and no retention rule may take
    /// it; what was only streamed into the cache stays unpinned.
    @Test func v15PinsTheDownloadsMadeBeforeRules() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let old = try Library(directory: directory, migratingUpTo: "v14: the listening log")
            try old.database.write { db in
                try db.execute(sql: "INSERT INTO podcast (feedURL, title, subscribedAt) VALUES ('https://example.org/feed', 'Show', 0)")
                for number in 1...3 {
                    try db.execute(sql: """
                        INSERT INTO episode (podcastId, guid, title, enclosures, feedOrder)
                        VALUES (1, ?, ?, '[{"url":"https://example.org/a.mp3"}]', ?)
                        """, arguments: ["g\(number)", "E\(number)", number])
                }
                // Episode 1 downloaded whole, 2 still downloading, 3 only streamed.
                for (episode, complete, pinned) in [(1, 1, 1), (2, 0, 1), (3, 1, 0)] {
                    try db.execute(sql: """
                        INSERT INTO cachedMedia (episodeId, url, fileName, length, validatedAt, lastAccess, complete, pinned)
                        VALUES (?, ?, ?, 1000, 0, 0, ?, ?)
                        """, arguments: [episode, "https://example.org/\(episode).mp3", "\(episode).mp3", complete, pinned])
                }
            }
        }
        let library = try Library(directory: directory)
        #expect(try library.isDownloadPinned(1) && library.isDownloadPinned(2))
        #expect(try library.isDownloadPinned(3) == false)
    }

    /// A library from before sync: what was listened to counts as changed
    /// when it was last played, so an older remote action does not win over it;
    /// nothing is queued until the first sync asks for the history.
    @Test func aV7LibraryDatesItsListeningForTheSync() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let old = try Library(directory: directory, migratingUpTo: "v7: refresh failures in a row")
            try old.database.write { db in
                try db.execute(sql: "INSERT INTO podcast (feedURL, title, subscribedAt) VALUES ('https://example.org/feed', 'Show', 0)")
                try db.execute(sql: """
                    INSERT INTO episode (podcastId, guid, title, enclosures, feedOrder, position, lastPlayedAt)
                    VALUES (1, 'g', 'G', '[{"url":"https://example.org/g.mp3"}]', 0, 120, 1700000000)
                    """)
            }
        }
        let library = try Library(directory: directory)
        let episode = try #require(try library.syncEpisodes(podcastID: 1).first)
        #expect(episode.changedAt == Date(timeIntervalSince1970: 1_700_000_000) && episode.enclosureURLs == ["https://example.org/g.mp3"])
        #expect(try library.applyRemote(episode.id, position: 10, completed: false, at: Date(timeIntervalSince1970: 1_600_000_000)) == false)
        #expect(try library.queuedActionCount() == 0)
        #expect(try library.queueListeningState() == 1)
        #expect(try library.queuedActions(limit: 1).first?.at == Date(timeIntervalSince1970: 1_700_000_000))
    }

    /// A library at v20 whose rows an older Pods left with times no episode
    /// has (REVIEW-4, N3): v21 forgets the transcript with such a cue (to be
    /// read again by today's reader), and brings every other stored second
    /// into range; in-range rows are left alone.
    @Test func v21BringsEveryStoredSecondIntoRange() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let old = try Library(directory: directory, migratingUpTo: "v20: Podcasting 2.0")
            try old.database.write { db in
                try db.execute(sql: "INSERT INTO podcast (feedURL, title, subscribedAt) VALUES ('https://example.org/feed', 'Show', 0)")
                for (guid, duration, position) in [("bad", "1e300", "-1"), ("good", "60", "30")] {
                    try db.execute(sql: """
                        INSERT INTO episode (podcastId, guid, title, enclosures, feedOrder, duration, position)
                        VALUES (1, '\(guid)', '\(guid)', '[]', 0, \(duration), \(position))
                        """)
                }
                try db.execute(sql: #"""
                    INSERT INTO transcript (episodeId, url, format, cues, fetchedAt) VALUES
                      (1, 'https://example.org/1.json', 'json', '[{"start":0,"text":"a"},{"start":1e300,"text":"b"}]', 0),
                      (2, 'https://example.org/2.json', 'json', '[{"start":0,"end":1,"text":"a"},{"text":"untimed"}]', 0)
                    """#)
                try db.execute(sql: "INSERT INTO bookmark (episodeId, position, note, createdAt) VALUES (1, 1e300, 'x', 0), (2, 12.5, 'y', 0)")
                try db.execute(sql: """
                    INSERT INTO playSession (episodeId, podcastId, episodeTitle, podcastTitle, startedAt, seconds, fromPosition, toPosition, rate)
                    VALUES (1, 1, 'bad', 'Show', 1, 1e300, -5, 9e18, 0), (2, 1, 'good', 'Show', 2, 10, 20, 30, 1.5)
                    """)
            }
        }
        let library = try Library(directory: directory)
        let (transcripts, episodes, bookmarks, sessions) = try library.database.read { db in
            (try String.fetchAll(db, sql: "SELECT url FROM transcript ORDER BY episodeId"),
             try Row.fetchAll(db, sql: "SELECT duration, position FROM episode ORDER BY id").map { [$0[0] as Double?, $0[1] as Double?] },
             try Double.fetchAll(db, sql: "SELECT position FROM bookmark ORDER BY id"),
             try Row.fetchAll(db, sql: "SELECT seconds, fromPosition, toPosition, rate FROM playSession ORDER BY id")
                .map { [$0[0] as Double, $0[1] as Double, $0[2] as Double, $0[3] as Double] })
        }
        #expect(transcripts == ["https://example.org/2.json"])
        #expect(episodes == [[nil, 0], [60, 30]])
        #expect(bookmarks == [0, 12.5])
        #expect(sessions == [[0, 0, 0, 1], [10, 20, 30, 1.5]])
    }
}

/// The JSON v3 wrote (JSONEncoder's, keys as the model's coding keys).
private struct OldEnclosure: Encodable {
    var url: String, type: String?, length: Int?
    init(_ enclosure: Enclosure) { (url, type, length) = (enclosure.url, enclosure.type, enclosure.length) }
}

private struct OldChapter: Encodable {
    var start: Double, title: String, url: String?, image: String?
    init(_ chapter: Chapter) { (start, title, url, image) = (chapter.start, chapter.title, chapter.url, chapter.image) }

}

private struct OldPerson: Encodable {
    var name: String, role: String?, group: String?, url: String?, image: String?
    init(_ person: Person) { (name, role, group, url, image) = (person.name, person.role, person.group, person.url, person.image) }
}
