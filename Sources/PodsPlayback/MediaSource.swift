import Foundation

/// What to play: a URI that `playbin` opens itself, or the bytes of that
/// URI read through a `RandomAccessMedia` (the range cache).
public struct MediaSource: Sendable, Hashable, CustomStringConvertible {
    /// The schemes the pipeline plays.
    public static let supportedSchemes = ["file", "http", "https"]

    /// The absolute URI, such as `file:///home/me/a.mp3` or `https://example.com/a.mp3`.
    public let uri: String
    /// Where the bytes come from instead of `uri`, when set (`uri` still
    /// names the media).
    public let media: (any RandomAccessMedia)?

    /// Accepts an absolute `file`, `http` or `https` URI.
    public init(uri: String) throws(PlaybackError) {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased() else {
            throw PlaybackError(.unsupportedURI, "'\(uri)' is not a URI")
        }
        guard Self.supportedSchemes.contains(scheme) else {
            throw PlaybackError(.unsupportedURI, "Pods plays file, http and https URIs, not '\(scheme):'")
        }
        if scheme != "file", (components.host ?? "").isEmpty {
            throw PlaybackError(.unsupportedURI, "'\(uri)' has no host")
        }
        self.uri = uri
        self.media = nil
    }

    /// `uri`'s bytes, read from `media`.
    public init(uri: String, media: any RandomAccessMedia) {
        self.uri = uri
        self.media = media
    }

    /// A local file, by path (relative paths against the current directory).
    public init(filePath: String) {
        self.uri = URL(fileURLWithPath: filePath).standardizedFileURL.absoluteString
        self.media = nil
    }

    /// The local path for a `file:` URI.
    public var filePath: String? {
        guard let url = URL(string: uri), url.isFileURL else { return nil }
        return url.path
    }

    /// The last path component, unescaped: a title when the media has none.
    public var displayName: String {
        guard let url = URL(string: uri) else { return uri }
        let name = url.lastPathComponent
        return name.isEmpty || name == "/" ? uri : name
    }

    public var description: String { uri }

    public static func == (lhs: MediaSource, rhs: MediaSource) -> Bool {
        lhs.uri == rhs.uri && lhs.media.map(ObjectIdentifier.init) == rhs.media.map(ObjectIdentifier.init)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(uri)
        hasher.combine(media.map(ObjectIdentifier.init))
    }
}
