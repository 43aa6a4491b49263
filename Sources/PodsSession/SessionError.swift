import PodsLibrary

/// Why the session could not do what it was asked, in words for the
/// listener. The session speaks no D-Bus: the interfaces give each kind its
/// bus name in one place (`SessionError+DBus`).
public struct SessionError: Error, Sendable {
    public enum Kind: Sendable {
        /// No such podcast, episode or item.
        case notFound
        /// A name matched more than one podcast.
        case ambiguous
        /// Already there (a second subscription to one feed).
        case duplicate
        /// The request itself is wrong (an empty name, a negative size).
        case invalidArgument
        /// It could not be done now (a server, the disk, a missing cache).
        case failed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    static func failed(_ message: String) -> SessionError { SessionError(.failed, message) }
    static func invalidArgument(_ message: String) -> SessionError { SessionError(.invalidArgument, message) }
    static func notFound(_ message: String) -> SessionError { SessionError(.notFound, message) }

    /// A library error as the listener is told it.
    public init(_ error: LibraryError) {
        let kind: Kind = switch error.code {
        case .notFound: .notFound
        case .ambiguous: .ambiguous
        case .duplicate: .duplicate
        case .invalid: .invalidArgument
        case .database, .feed: .failed
        }
        self.init(kind, error.message)
    }

    /// Runs a library call, its error as the session's.
    public static func mapped<T>(_ body: () throws(LibraryError) -> T) throws(SessionError) -> T {
        do { return try body() } catch { throw SessionError(error) }
    }
}
