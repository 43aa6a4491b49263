import Foundation

/// What to play: today a URI that `playbin` opens itself.
///
/// Kept a small type of its own so that a cache-backed source can replace
/// the URI later without touching every layer that passes it along.
public struct MediaSource: Sendable, Hashable, CustomStringConvertible {
    /// The schemes the pipeline plays.
    public static let supportedSchemes = ["file", "http", "https"]

    /// The absolute URI, such as `file:///home/me/a.mp3` or `https://example.com/a.mp3`.
    public let uri: String

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
    }

    /// A local file, by path (relative paths against the current directory).
    public init(filePath: String) {
        self.uri = URL(fileURLWithPath: filePath).standardizedFileURL.absoluteString
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
}
