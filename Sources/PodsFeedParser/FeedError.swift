/// Why a feed could not be read.
public struct FeedError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The document is not RSS or Atom (an HTML page, another XML format).
        case notAFeed
        /// Not XML at all, or broken before anything useful.
        case malformed
        case tooLarge
        case tooDeep
        /// The source could not be read or fetched.
        case unreadable
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
