import Foundation
import Logging
import PodsFeedParser
import PodsHTTP
@testable import PodsLibrary
@testable import PodsSession
import PodsSettings
import PodsTestSupport
import Testing

/// The files that hold secrets, written by many at once and read after a
/// crash, and the URLs a library stored before the URL policy (REVIEW-3, N3, N5).
@Suite(.timeLimit(.minutes(10))) struct PrivateFilesTests {
    static let logger = Logger(label: "test")

    /// Reproduced: a truncated credentials.json was taken as empty, and the
    /// next private subscription wrote over every password in it.
    @Test func anUnreadableCredentialsFileIsSetAsideNeverWrittenOver() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("credentials.json")
        let cut = Data(#"{"https://a.example:443": {"user": "alice", "password": "s3cret"#.utf8)
        try cut.write(to: file)
        let store = await CredentialStore.open(secrets: nil, file: file, logger: Self.logger)
        try await store.keep(HTTPCredentials(user: "bob", password: "other"), forKey: "https://b.example:443")
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("credentials.json.unreadable-") }
        #expect(aside.count == 1, "\(aside)")
        #expect(try Data(contentsOf: directory.appendingPathComponent(aside[0])) == cut, "the old file, as it was")
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: [String: String]])
        #expect(written.keys.sorted() == ["https://b.example:443"])
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// Many keeps at once (an OPML import's subscriptions) all end in the
    /// file, which is whole JSON; a password still being tried is not in it.
    @Test func keepsAtOnceAreAllKeptAndATriedPasswordIsNot() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("credentials.json")
        let store = await CredentialStore.open(secrets: nil, file: file, logger: Self.logger)
        _ = store.use(HTTPCredentials(user: "trying", password: "maybe-wrong"), for: "https://tried.example/feed.xml")
        await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await store.keep(HTTPCredentials(user: "u\(index)", password: "p\(index)"), forKey: "https://h\(index).example:443")
                }
            }
        }
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: [String: String]])
        #expect(written.count == 40, "\(written.keys.sorted())")
        #expect(!String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("maybe-wrong"))
        let partials = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".partial") }
        #expect(partials.isEmpty, "\(partials)")
    }

    /// Two settings written at once both stay (each read-modify-write is one
    /// step), and a config.toml that cannot be read is not written over.
    @Test func configWritesAtOnceBothStayAndAnUnreadableFileIsLeft() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = ConfigFile(url: directory.appendingPathComponent("config.toml"))
        _ = try config.load()
        await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask { try config.set(.speed, .number(1.5)) }
                group.addTask { try config.set(.skipBack, .number(15)) }
            }
        }
        let settings = try config.load()
        #expect(settings.values[.speed] == .number(1.5) && settings.values[.skipBack] == .number(15))
        // A folder where the file should be cannot be read (root reads any file): the update fails, nothing is replaced.
        let blocked = ConfigFile(url: directory.appendingPathComponent("blocked.toml"))
        try FileManager.default.createDirectory(at: blocked.url, withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: blocked.url.appendingPathComponent("inside"))
        #expect(throws: SettingsError.self) { try blocked.set(.speed, .number(2)) }
        #expect(throws: SettingsError.self) { _ = try blocked.load() }
        #expect(try String(contentsOf: blocked.url.appendingPathComponent("inside"), encoding: .utf8) == "kept")
    }

    /// Reproduced: a `file:` transcript URL stored for a web podcast (a
    /// library written before the URL policy) was read and printed by
    /// `pods show --transcript`. Only a podcast whose own feed is a file may.
    @Test func aWebPodcastsFileTranscriptIsNeverRead() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = directory.appendingPathComponent("secret.srt")
        try Data("1\n00:00:00,000 --> 00:00:01,000\nthe secret\n".utf8).write(to: secret)
        let library = try Library(directory: directory.appendingPathComponent("data"))
        var feed = Feed()
        feed.title = "Show"
        var episode = Episode()
        episode.guid = "g"
        episode.title = "E"
        episode.transcriptURL = secret.absoluteString
        episode.enclosures = [Enclosure(url: "https://example.com/a.mp3", type: "audio/mpeg", length: nil)]
        feed.episodes = [episode]
        let web = try library.subscribe(feedURL: "https://example.com/feed.xml", feed: feed, etag: nil, lastModified: nil)
        let local = try library.subscribe(feedURL: directory.appendingPathComponent("feed.xml").absoluteString, feed: feed,
                                          etag: nil, lastModified: nil)
        let loader = TranscriptLoader(library: library)
        let webEpisode = try #require(try library.episodes(podcastId: web.id).first?.id)
        await #expect(throws: SessionError.self) { _ = try await loader.cues(of: webEpisode) }
        let localEpisode = try #require(try library.episodes(podcastId: local.id).first?.id)
        #expect(try await loader.cues(of: localEpisode).map(\.text) == ["the secret"])
    }
}
