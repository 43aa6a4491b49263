import Foundation

/// Why the cache could not do something; `description` is one line for the user.
public struct CacheError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The disk is full: play this episode by streaming instead.
        case diskFull
        /// A file could not be opened, read or written.
        case file
        /// The server failed, or the network is gone.
        case network
        /// The server does not say how long the file is: stream it instead.
        case unknownLength
        case library
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// From `errno`: a full disk gets its own code.
    static func system(_ what: String) -> CacheError {
        let number = errno
        let reason = String(cString: strerror(number))
        return CacheError(number == ENOSPC || number == EDQUOT ? .diskFull : .file, "\(what): \(reason)")
    }

    public var description: String { message }
}
