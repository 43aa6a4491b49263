/// Why the player did not do what it was asked; one line for the listener.
/// The D-Bus interfaces give each code its error name.
public struct PlayerError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// Nothing to do it with (no track loaded, no chapters).
        case notSupported
        /// A value out of range or a target that does not exist.
        case invalidArgument
        /// It could not be done now (the last chapter has no next).
        case failed
    }

    public var code: Code
    public var message: String
    public var description: String { message }

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func failed(_ message: String) -> PlayerError { PlayerError(.failed, message) }
    public static func invalidArgument(_ message: String) -> PlayerError { PlayerError(.invalidArgument, message) }
}
