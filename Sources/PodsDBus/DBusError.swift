/// An error as D-Bus carries it: a well-known error name and a message.
///
/// Errors a remote peer replies with arrive as `DBusError`; handlers of
/// exported objects throw it to reply with that name.
public struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error name, such as `org.freedesktop.DBus.Error.InvalidArgs`.
    public var name: String
    /// A human-readable explanation.
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name): \(message)" }
}

// MARK: - Well-known names

extension DBusError {
    public enum Name {
        public static let failed = "org.freedesktop.DBus.Error.Failed"
        public static let noReply = "org.freedesktop.DBus.Error.NoReply"
        public static let timeout = "org.freedesktop.DBus.Error.Timeout"
        public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        public static let invalidSignature = "org.freedesktop.DBus.Error.InvalidSignature"
        public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        public static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
        public static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        public static let noServer = "org.freedesktop.DBus.Error.NoServer"
        public static let fileNotFound = "org.freedesktop.DBus.Error.FileNotFound"
    }

    public static func failed(_ message: String) -> DBusError { .init(name: Name.failed, message: message) }
    public static func invalidArgs(_ message: String) -> DBusError { .init(name: Name.invalidArgs, message: message) }
    public static func notSupported(_ message: String) -> DBusError { .init(name: Name.notSupported, message: message) }
    public static func disconnected(_ message: String = "Not connected to the bus") -> DBusError {
        .init(name: Name.disconnected, message: message)
    }
    static func invalidSignature(_ signature: String, _ why: String) -> DBusError {
        .init(name: Name.invalidSignature, message: "Invalid signature '\(signature)': \(why)")
    }

    /// Whether the error means nobody owns the name that was called.
    public var isNoOwner: Bool {
        name == Name.serviceUnknown || name == Name.nameHasNoOwner
    }
}

/// An error of another module that has a D-Bus name: a handler may throw it
/// and the caller gets `dbusError` (other errors are `Failed`).
public protocol DBusErrorConvertible: Error {
    var dbusError: DBusError { get }
}
