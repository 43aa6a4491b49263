import Foundation
import GRDB
import PodsLibrary
import PodsTestSupport
import Testing

/// SQLite is dynamically typed: a value of the wrong type in a column (a
/// file edited by hand, another program) is a `LibraryError`, never a trap.
@Suite struct LibraryCorruptRowTests {
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
}
