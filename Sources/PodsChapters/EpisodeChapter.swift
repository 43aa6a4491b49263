import Foundation

/// Where a chapter list came from.
public enum ChapterSource: String, Sendable, Codable, CaseIterable {
    /// Podlove Simple Chapters in the feed.
    case psc
    /// A `podcast:chapters` JSON file.
    case json
    /// ID3v2 `CHAP` frames in an MP3.
    case id3
    /// An MP4's Nero `chpl` atom or QuickTime chapter track.
    case mp4
    /// `CHAPTERxxx` Vorbis comments in Ogg Vorbis, Opus or FLAC.
    case vorbis
    /// Times in the show notes ("12:34 Topic"), when no other source has chapters.
    case notes
}

/// One chapter of an episode, from any source.
public struct EpisodeChapter: Sendable, Equatable, Codable {
    /// Seconds from the start of the file.
    public var start: Double
    /// Seconds; nil when the source gave none (the next chapter's start,
    /// else the episode's end, stands in).
    public var end: Double?
    public var title: String
    /// A web page about the chapter.
    public var url: String?
    /// The chapter's image: a URL, or (after `EmbeddedImage` was saved) a
    /// `file://` URI.
    public var image: String?
    /// An image carried in the media file itself (ID3 `APIC`).
    public var embeddedImage: EmbeddedImage?
    /// False for a "silent" chapter (JSON `toc: false`): art and metadata
    /// only, not in the table of contents, not a jump point.
    public var toc: Bool
    public var source: ChapterSource

    public init(start: Double, end: Double? = nil, title: String, url: String? = nil, image: String? = nil,
                embeddedImage: EmbeddedImage? = nil, toc: Bool = true, source: ChapterSource) {
        self.start = start
        self.end = end
        self.title = title
        self.url = url
        self.image = image
        self.embeddedImage = embeddedImage
        self.toc = toc
        self.source = source
    }
}

/// Image bytes found inside a media file.
public struct EmbeddedImage: Sendable, Equatable, Codable {
    public var mimeType: String
    public var bytes: [UInt8]

    public init(mimeType: String, bytes: [UInt8]) {
        self.mimeType = mimeType
        self.bytes = bytes
    }

    /// A file name extension for the image's type.
    public var fileExtension: String {
        switch mimeType.lowercased() {
        case "image/png", "png": "png"
        case "image/gif": "gif"
        case "image/webp": "webp"
        default: "jpg"
        }
    }
}

/// Why chapters could not be read.
public struct ChapterError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The bytes could not be had (a network that failed or was slow, a file
    /// that could not be opened): nothing was learnt of the file, so it may be
    /// read again. Any other error is the file's own.
    public var isTransient: Bool

    public init(_ message: String, transient: Bool = false) {
        self.message = message
        self.isTransient = transient
    }

    public var description: String { message }
}

// MARK: - Time

extension EpisodeChapter {
    /// The latest a chapter may start or end: about 115 days, the same as
    /// `PodsFeedParser`'s `MediaSeconds.maximum` (this module depends on none other).
    public static let maximumSeconds: Double = 10_000_000

    /// `value` when it is a time in an episode (finite, 0 to `maximumSeconds`), else nil:
    /// every reader checks its times here before anything converts them.
    public static func checkedSeconds(_ value: Double?) -> Double? {
        guard let value, value.isFinite, value >= 0, value <= maximumSeconds else { return nil }
        return value
    }

    /// Whether the chapter's start (and end, if any) are times in an episode.
    public var hasTimesInRange: Bool {
        Self.checkedSeconds(start) != nil && (end == nil || Self.checkedSeconds(end) != nil)
    }

    /// A time as chapter formats write it: `[[hh:]mm:]ss[.fff]` (Normal Play
    /// Time, also Vorbis `CHAPTERxxx`); nil for anything else.
    public static func seconds(fromClock text: String) -> Double? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || (isLast && $0 == ".")) }),
                  let value = Double(part), value.isFinite else { return nil }
            total = total * 60 + value
        }
        return checkedSeconds(total)
    }
}
