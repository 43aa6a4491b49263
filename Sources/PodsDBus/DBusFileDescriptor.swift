import Glibc

/// A Unix file descriptor passed in a message (`h`), owned: it is closed
/// when the last reference goes. libdbus duplicates a descriptor both when
/// one is appended to a message and when one is read from it, so whoever
/// makes or receives one owns its copy alone.
///
/// Sendable: `rawValue` is immutable and closing happens once, in `deinit`.
public final class DBusFileDescriptor: Sendable, Hashable {
    /// The descriptor; valid while this object lives.
    public let rawValue: Int32

    /// Takes ownership of `descriptor`.
    public init(adopting descriptor: Int32) {
        rawValue = descriptor
    }

    deinit { close(rawValue) }

    public static func == (lhs: DBusFileDescriptor, rhs: DBusFileDescriptor) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
