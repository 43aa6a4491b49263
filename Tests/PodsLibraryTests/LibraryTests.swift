import Foundation
import GRDB
import PodsFeedParser
import PodsLibrary
import PodsTestSupport
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(10))) struct LibraryTests {
    /// A commit that takes the log past 1000 pages has it folded into the
    /// file in the background, on a connection of its own (the writer's
    /// commit does not copy it); the next write cuts the log back to 4 MB,
    /// the library whole.
    @Test func aLargeWriteIsFoldedIntoTheFileInTheBackground() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try Library(directory: directory)
        func size(_ suffix: String) -> Int {
            let path = directory.appendingPathComponent(Library.fileName + suffix).path
            return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        }
        var feed = Feed()
        feed.title = "Big"
        feed.episodes = (0..<10_000).map { number in
            var episode = Episode()
            episode.guid = "e\(number)"
            episode.title = "Episode \(number)"
            episode.descriptionHTML = "<p>" + String(repeating: "Notes for episode \(number). ", count: 60) + "</p>"
            episode.enclosures = [Enclosure(url: "https://cdn.example.org/\(number).mp3", type: "audio/mpeg", length: 1000)]
            return episode
        }
        _ = try library.subscribe(feedURL: "https://example.org/big.xml", feed: feed, etag: nil, lastModified: nil)
        #expect(size("-wal") > 16 << 20, "the log is \(size("-wal")) bytes")
        let deadline = ContinuousClock.now + .seconds(20)
        while size("") < 16 << 20, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(size("") > 16 << 20, "the file is \(size("")) bytes: nothing folded the log")
        // A write after a whole fold (as podsd makes when it goes idle; this
        // one may meet the background fold still copying) starts the log again.
        var volume = 1.0
        repeat {
            library.foldLogIntoFile()
            volume -= 0.01
            try library.save(PlaybackSettings(rate: 1, volume: volume))
            if size("-wal") > 4 << 20 { try await Task.sleep(for: .milliseconds(20)) }
        } while size("-wal") > 4 << 20 && ContinuousClock.now < deadline
        #expect(size("-wal") <= 4 << 20, "the log is \(size("-wal")) bytes after the fold")
        #expect(try library.integrityCheck() == "ok")
        #expect(try library.episodes(podcastId: 1).count == 10_000)
    }

    /// Another connection holding the file for a moment as podsd opens it
    /// (the last one to close a large log folds it whole, under an exclusive
    /// lock; a podsd started with `--replace` meets the old one's last
    /// writes) is waited for: podsd keeps its library instead of running a
    /// whole session without one.
    @Test func aLibraryHeldByAnotherConnectionForAMomentIsWaitedFor() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do { try Library(directory: directory).save(PlaybackSettings(rate: 1.5, volume: 0.5)) }
        var unsafe = Configuration()
        unsafe.allowsUnsafeTransactions = true  // the lock stays held between the two accesses
        let holder = try DatabaseQueue(path: directory.appendingPathComponent(Library.fileName).path, configuration: unsafe)
        try await holder.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "BEGIN EXCLUSIVE")
        }
        // The holder lets go after 700 ms, on a thread of its own that starts at once: as a
        // task on the cooperative pool, which the other suites share, its wake-up came too
        // late under load, after the open's 10 s wait ("database is locked").
        let released = DispatchSemaphore(value: 0), failure = Mutex<(any Error)?>(nil)
        Thread {
            Thread.sleep(forTimeInterval: 0.7)
            do {
                try holder.writeWithoutTransaction { db in
                    try db.execute(sql: "COMMIT")
                    try db.execute(sql: "PRAGMA locking_mode = NORMAL")
                    _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")  // NORMAL takes effect at the next access
                }
            } catch {
                failure.withLock { $0 = error }
            }
            released.signal()
        }.start()
        let started = ContinuousClock.now
        let library = try await onOwnThread { try Library(directory: directory) }
        #expect(ContinuousClock.now - started >= .milliseconds(500), "the open did not meet the lock")
        #expect(try library.playbackSettings() == PlaybackSettings(rate: 1.5, volume: 0.5))
        try await onOwnThread {
            released.wait()
            if let error = failure.withLock({ $0 }) { throw error }
        }
    }

    @Test func settingsDefaultThenSurviveReopening() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let library = try Library(directory: directory)
            #expect(try library.playbackSettings() == PlaybackSettings(rate: 1, volume: 1))
            try library.save(PlaybackSettings(rate: 1.75, volume: 0.3))
            try library.save(PlaybackSettings(rate: 1.5, volume: 0.3))
        }
        let reopened = try Library(directory: directory)
        #expect(try reopened.playbackSettings() == PlaybackSettings(rate: 1.5, volume: 0.3))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("library.sqlite-wal").path))
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(Library.fileName)
        try Data(repeating: 0x42, count: 8192).write(to: file)
        #expect {
            _ = try Library(directory: directory)
        } throws: { error in
            "\(error)".contains(file.path) && "\(error)".contains("not a database")
        }
        #expect(try Data(contentsOf: file) == Data(repeating: 0x42, count: 8192))  // left as it was
    }

    @Test func anUnwritableDirectoryIsAClearError() throws {
        #expect(throws: LibraryError.self) { _ = try Library(directory: URL(fileURLWithPath: "/proc/pods-test")) }
    }
}

/// The library holds listening history and private feeds' URLs: only its
/// user reads it, whatever the umask (REVIEW-3, Everything else 15).
@Suite(.timeLimit(.minutes(10))) struct LibraryFileModeTests {
    @Test func theLibraryAndItsFolderAreTheUsersAlone() throws {
        let parent = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let directory = parent.appendingPathComponent("data")
        let previous = umask(0o022)
        defer { umask(previous) }
        let library = try Library(directory: directory)
        _ = try library.podcasts()
        func mode(_ path: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1 }
        #expect(try mode(directory.path) == 0o700)
        for name in ["library.sqlite", "library.sqlite-wal", "library.sqlite-shm"]
        where FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) {
            #expect(try mode(directory.appendingPathComponent(name).path) == 0o600, "\(name)")
        }
    }
}
