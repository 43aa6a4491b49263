/// Why a source could not be played.
public struct PlaybackError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// Not a file, http or https URI.
        case unsupportedURI
        /// The file or remote resource does not exist.
        case notFound
        /// The server could not be reached, refused, or failed.
        case network
        /// The data is not audio the pipeline can decode.
        case undecodable
        /// The audio output could not be opened.
        case audioOutput
        /// GStreamer could not be set up (missing plugins).
        case setup
        case other
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
