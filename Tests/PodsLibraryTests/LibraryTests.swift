import Foundation
import PodsLibrary
import PodsTestSupport
import Testing

@Suite struct LibraryTests {
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
