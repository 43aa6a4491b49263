import Foundation
import PodsClient

/// A loopback server with one episode in each format (noise of `seconds`),
/// artwork, and a feed listing them: what the cache tests and
/// `pods-cache-bench` stream from. Audio files are made once per directory.
public struct EpisodeServer: Sendable {
    public let server: LoopbackHTTPServer
    /// Each format's file, as served.
    public let files: [AudioFixtures.Format: Data]

    /// Where the audio is made (shared across tests in one run).
    public static let audioDirectory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pods-test-audio")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    public init(seconds: Int = 180) async throws {
        var urls: [String: URL] = [:]
        var files: [AudioFixtures.Format: Data] = [:]
        for format in AudioFixtures.Format.allCases {
            let url = try await AudioFixtures.make(format, seconds: seconds, in: Self.audioDirectory)
            urls[Self.path(format)] = url
            files[format] = try Data(contentsOf: url)
        }
        urls["/art.png"] = Fixtures.data("pods.desktop.in")  // any bytes will do for the cache
        server = try LoopbackHTTPServer(files: urls)
        self.files = files
        var xml = #"<?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>"#
        xml += #"<title>Noise</title><itunes:image href="\#(server.url("/art.png"))"/>"#
        for (index, format) in AudioFixtures.Format.allCases.enumerated() {
            xml += "<item><title>Episode \(format.rawValue)</title><guid>\(format.rawValue)</guid>"
            xml += "<pubDate>0\(index + 1) Nov 2026 08:00:00 GMT</pubDate><itunes:duration>\(seconds)</itunes:duration>"
            let type = ["mp3": "audio/mpeg", "ogg": "audio/ogg", "m4a": "audio/mp4"][format.rawValue] ?? "audio/mpeg"
            xml += #"<enclosure url="\#(server.url(Self.path(format)))" type="\#(type)"/></item>"#
        }
        server.setFile("/feed.xml", Data((xml + "</channel></rss>").utf8))
    }

    public static func path(_ format: AudioFixtures.Format) -> String { "/\(format.rawValue)/episode.\(format.rawValue)" }

    /// Bytes of `format`'s episode sent so far ÷ its size.
    public func ratio(_ format: AudioFixtures.Format) -> Double {
        Double(server.bytesSent(for: Self.path(format))) / Double(files[format]?.count ?? 1)
    }

    /// Subscribes podsd to the feed; the episode id of each format.
    public func subscribe(_ podsd: PodsdProcess) async throws -> [AudioFixtures.Format: Int64] {
        let library = LibraryClient(podsd.client)
        let podcast = try await library.subscribeJSON(server.url("/feed.xml"))
        let id = podcast["id"] as? Int ?? 0
        let episodes = try await library.episodesJSON(podcast: String(id))
        var ids: [AudioFixtures.Format: Int64] = [:]
        for episode in episodes {
            if let guid = episode["guid"] as? String, let format = AudioFixtures.Format(rawValue: guid), let id = episode["id"] as? Int {
                ids[format] = Int64(id)
            }
        }
        return ids
    }
}
