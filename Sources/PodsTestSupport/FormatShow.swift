import Foundation
import PodsClient

/// A podcast of five episodes, one per format podcasts ship in, each a tone
/// made with `ffmpeg` in raw audio of its own (sample rate, channels and
/// sample format all change from one to the next), so that switching
/// between any two renegotiates the whole audio chain. The playback-switch
/// tests and `pods-soak-bench` play it. Enclosures are `file:` URLs: the
/// episodes play as downloaded ones do.
public struct FormatShow: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        /// MP3 (LAME), 44.1 kHz stereo.
        case mp3
        /// Ogg Vorbis, 22.05 kHz mono.
        case ogg
        /// Ogg Opus, 48 kHz stereo (Opus decodes to 48 kHz only).
        case opus
        /// AAC in MP4, 32 kHz mono.
        case m4a
        /// FLAC, 24-bit, 44.1 kHz stereo.
        case flac

        var encoding: [String] {
            switch self {
            case .mp3: ["-ar", "44100", "-ac", "2", "-c:a", "libmp3lame", "-b:a", "96k"]
            case .ogg: ["-ar", "22050", "-ac", "1", "-c:a", "libvorbis"]
            case .opus: ["-ar", "48000", "-ac", "2", "-c:a", "libopus", "-b:a", "64k"]
            case .m4a: ["-ar", "32000", "-ac", "1", "-c:a", "aac", "-b:a", "64k"]
            case .flac: ["-ar", "44100", "-ac", "2", "-c:a", "flac", "-sample_fmt", "s32"]
            }
        }

        var mimeType: String {
            switch self {
            case .mp3: "audio/mpeg"
            case .ogg, .opus: "audio/ogg"
            case .m4a: "audio/mp4"
            case .flac: "audio/flac"
            }
        }
    }

    /// Each episode's length.
    public let seconds: Int
    /// The feed (a file) listing the five.
    public let feed: URL
    /// Each format's file.
    public let files: [Format: URL]

    /// Makes the five files (once per directory and length) and the feed.
    public init(seconds: Int = 20, in directory: URL) async throws {
        var files: [Format: URL] = [:]
        for format in Format.allCases {
            files[format] = try await Self.make(format, seconds: seconds, in: directory)
        }
        var xml = #"<?xml version="1.0"?><rss version="2.0"><channel><title>Formats</title>"#
        for (index, format) in Format.allCases.enumerated() {
            xml += "<item><title>Tone \(format.rawValue)</title><guid>\(format.rawValue)</guid>"
            xml += "<pubDate>0\(index + 1) Nov 2026 08:00:00 GMT</pubDate>"
            xml += #"<enclosure url="\#(files[format]?.absoluteString ?? "")" type="\#(format.mimeType)"/></item>"#
        }
        let feed = directory.appendingPathComponent("formats-\(seconds)s.xml")
        try Data((xml + "</channel></rss>").utf8).write(to: feed)
        self.seconds = seconds
        self.feed = feed
        self.files = files
    }

    /// Subscribes podsd to the show; each format's episode id.
    public func subscribe(_ podsd: PodsdProcess) async throws -> [Format: Int64] {
        let library = LibraryClient(podsd.client)
        let podcast = try await library.subscribeJSON(feed.absoluteString)
        let episodes = try await library.episodesJSON(podcast: String(podcast["id"] as? Int ?? 0))
        var ids: [Format: Int64] = [:]
        for episode in episodes {
            if let guid = episode["guid"] as? String, let format = Format(rawValue: guid), let id = episode["id"] as? Int {
                ids[format] = Int64(id)
            }
        }
        guard ids.count == Format.allCases.count else { throw TestSupportError("the format show has \(ids.count) episodes") }
        return ids
    }

    private static func make(_ format: Format, seconds: Int, in directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent("tone-\(seconds)s.\(format.rawValue)")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        let partial = directory.appendingPathComponent("\(UUID().uuidString).\(format.rawValue)").path
        defer { unlink(partial) }
        let result = await Subprocess.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)",
        ] + format.encoding + ["-y", partial], timeout: .seconds(60))
        guard result.status == 0, AudioFixtures.keepFirst(partial, as: url.path) else {
            throw TestSupportError("ffmpeg could not make \(url.lastPathComponent): \(result)")
        }
        return url
    }
}
