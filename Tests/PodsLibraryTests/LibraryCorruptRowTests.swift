import Foundation
import GRDB
import PodsLibrary
import PodsTestSupport
import Testing

/// SQLite is dynamically typed: a value of the wrong type in a column (a
/// file edited by hand, another program) is a `LibraryError`, never a trap.
@Suite(.timeLimit(.minutes(10))) struct LibraryCorruptRowTests {
    @Test func aValueOfTheWrongTypeIsAnErrorNotACrash() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let podcast: Podcast
        do {
            let library = try Library(directory: directory)
            podcast = try #require(try GeneratedLibrary.populate(library, podcasts: 1, episodesEach: 3).first)
            try library.startPlaying(try #require(try library.episodes().first?.id))
        }
        let file = directory.appendingPathComponent(Library.fileName).path
        try DatabaseQueue(path: file).write { db in
            try db.execute(sql: "UPDATE episode SET position = 'not a number', title = X'FFFE'")
            try db.execute(sql: "UPDATE podcast SET subscribedAt = 'yesterday'")
        }
        let library = try Library(directory: directory)
        #expect(throws: LibraryError.self) { try library.episodes() }
        #expect(throws: LibraryError.self) { try library.currentEpisode() }
        #expect(throws: LibraryError.self) { try library.podcasts() }
        #expect(throws: LibraryError.self) { try library.podcast(podcast.id) }
        // Lists read columns the way SQLite converts them (text that is no number reads as 0).
        #expect(try library.episodes(EpisodeFilter(), after: nil, limit: 10).map(\.position) == [0, 0, 0])
        #expect(try library.integrityCheck() == "ok")
    }

    /// A number no episode has (1e300, −1, Int64.max seconds) reads back as
    /// none, wherever it is read: the hostile world's synced libraries found
    /// a duration of 1e300 read raw by the sync, and podsd trapped turning
    /// it into a Duration (`Row+StoredValues`).
    @Test func numbersOutOfRangeReadBackAsNone() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let episode: Int64
        do {
            let library = try Library(directory: directory)
            _ = try GeneratedLibrary.populate(library, podcasts: 1, episodesEach: 1)
            episode = try #require(try library.episodes().first?.id)
            try library.startPlaying(episode)
        }
        try DatabaseQueue(path: directory.appendingPathComponent(Library.fileName).path).write { db in
            try db.execute(sql: "UPDATE episode SET duration = 1e300, position = 9.3e18, published = -1e300, lastPlayedAt = 1e300")
            try db.execute(sql: "INSERT INTO bookmark (episodeId, position, note, createdAt) VALUES (?, -1, 'below', 1e300)", arguments: [episode])
        }
        let library = try Library(directory: directory)
        let read = try #require(try library.currentEpisode())
        #expect(read.episode.duration == nil && read.position == 0 && read.episode.published == nil && read.lastPlayedAt == nil)
        #expect(try library.syncEpisodes(podcastID: 1).map(\.duration) == [nil])
        let bookmark = try #require(try library.bookmarks(episode: episode, limit: 10).first)
        #expect(bookmark.position == 0 && bookmark.createdAt == Date(timeIntervalSince1970: 0))
    }

    /// The sync tables too: a bad value there trapped podsd at every start
    /// (the account is read as podsd starts).
    @Test func aWrongValueInTheSyncTablesIsAnErrorNotACrash() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let episode: Int64
        do {
            let library = try Library(directory: directory)
            _ = try GeneratedLibrary.populate(library, podcasts: 1, episodesEach: 3)
            episode = try #require(try library.episodes().first?.id)
            _ = try library.activateSync(SyncAccount(server: "https://sync.example", user: "me", device: "pods", api: "gpodder"))
            try library.startPlaying(episode)
            try library.recordListening(episode, started: 0, total: 60)
            try library.deferRemote(episode, position: 12, completed: false, at: Date())
            #expect(try library.queuedActions(limit: 10).count == 1)
        }
        let file = directory.appendingPathComponent(Library.fileName).path
        try DatabaseQueue(path: file).write { db in
            try db.execute(sql: "UPDATE syncAccount SET activatedAt = 'never', server = X'00FF'")
            try db.execute(sql: "UPDATE syncAction SET at = 'soon', action = X'FF'")
            try db.execute(sql: "UPDATE syncDeferred SET at = X'00'")
            try db.execute(sql: "UPDATE episode SET duration = 'long'")
        }
        let library = try Library(directory: directory)
        #expect(throws: LibraryError.self) { try library.syncAccount() }
        #expect(throws: LibraryError.self) { try library.queuedActions(limit: 10) }
        #expect(throws: LibraryError.self) { try library.takeDeferred(episode) }
        #expect(throws: LibraryError.self) { try library.syncEpisodes(podcastID: 1) }
        #expect(try library.integrityCheck() == "ok")
    }

    /// Every table, every column that is not a key: a value of the wrong
    /// type (a blob of bytes that are no UTF-8, no number, no date) in each,
    /// then every reader of each table. A trap anywhere would end this test
    /// process; what comes back is a value or a `LibraryError`.
    @Test func wrongValuesInEveryTableAreErrorsOrValuesNeverATrap() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let podcast: Int64, episode: Int64
        do {
            let library = try Library(directory: directory)
            podcast = try #require(try GeneratedLibrary.populate(library, podcasts: 2, episodesEach: 3).first?.id)
            let episodes = try library.episodes()
            episode = try #require(episodes.first?.id)
            try library.enqueue(episodes.map(\.id))
            _ = try library.startPlaying(episode)
            try library.setPodcastSetting(podcast, "speed", "1.5")
            try library.saveCachedMedia(CachedMedia(episodeId: episode, url: "https://e.com/1.mp3", finalURL: nil, length: 100,
                                                    etag: "\"e\"", lastModified: nil, fileName: "1.mp3"))
            try library.saveCachedArtwork(CachedArtwork(url: "https://e.com/a.png", fileName: "a.png", etag: nil, lastModified: nil))
            try library.saveChapterList(episode, .json, StoredChapterList(url: "https://e.com/c.json", chapters: []))
            try library.saveTranscript(episode, url: "https://e.com/t.vtt", format: "vtt", cuesJSON: "[]")
            _ = try library.activateSync(SyncAccount(server: "https://sync.example", user: "me", device: "pods", api: "gpodder"))
            try library.unsubscribe(try #require(try library.podcasts().last?.id))
            #expect(try library.queuedSubscriptions().count >= 1)
            try library.setCacheBudget(1 << 30)
        }
        let file = directory.appendingPathComponent(Library.fileName).path
        var corrupted = 0
        try DatabaseQueue(path: file).write { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            #expect(tables.count >= 14, "\(tables)")
            for table in tables {
                for column in try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))") {
                    let name: String = try column.decode(forColumn: "name")
                    let key: Int = try column.decode(forColumn: "pk")
                    guard key == 0, !name.hasSuffix("Id"), name != "id" else { continue }
                    // A CHECK or UNIQUE constraint may refuse it; the others are what a hand edit leaves.
                    if (try? db.execute(sql: "UPDATE \(table) SET \(name) = X'FFFE00'")) != nil { corrupted += 1 }
                }
            }
        }
        #expect(corrupted > 40)
        let library = try Library(directory: directory)
        let readers: [() throws -> Void] = [
            { _ = try library.podcasts() }, { _ = try library.podcast(podcast) }, { _ = try library.podcastIDs() },
            { _ = try library.podcastArtworkURLs() }, { _ = try library.autoDownloadTargets() },
            { _ = try library.podcastSettings(podcast) }, { _ = try library.episodes() }, { _ = try library.episode(episode) },
            { _ = try library.episodes(EpisodeFilter(), after: nil, limit: 10) }, { _ = try library.currentEpisode() },
            { _ = try library.nextEpisode(after: episode) }, { _ = try library.previouslyPlayedEpisode(before: episode) },
            { _ = try library.queue() }, { _ = try library.cachedMedia(episode) }, { _ = try library.allCachedMedia() },
            { _ = try library.cachedArtwork("https://e.com/a.png") }, { _ = try library.cacheBudget() },
            { _ = try library.completedEpisodes() }, { _ = try library.episodesInUse() },
            { _ = try library.chapterList(episode, .json, url: "https://e.com/c.json") },
            { _ = try library.transcript(episode, url: "https://e.com/t.vtt") },
            { _ = try library.syncAccount() }, { _ = try library.queuedSubscriptions() }, { _ = try library.queuedActions(limit: 10) },
            { _ = try library.syncEpisodes(podcastID: podcast) }, { _ = try library.playbackSettings() },
        ]
        var errors = 0
        for read in readers {
            do { try read() } catch {
                #expect(error is LibraryError, "\(error)")
                errors += 1
            }
        }
        #expect(errors > 5, "most readers find a value they cannot use")
        #expect(try library.integrityCheck() == "ok")
    }
}
