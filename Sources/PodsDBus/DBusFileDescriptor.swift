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

    /// A new pipe's read and write ends, neither inherited by programs this
    /// process starts: what a caller passes to have a stream written to it
    /// (`DBusBodyStream`). It holds up to `pipeBytes` (when the system
    /// allows; else the default 64 KiB), so a writer's whole page goes in
    /// with one write and no wait for the reader.
    public static func pipe() throws(DBusError) -> (read: DBusFileDescriptor, write: DBusFileDescriptor) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw .failed("could not make a pipe (errno \(errno))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], setPipeSize, pipeBytes)  // best effort: /proc/sys/fs/pipe-max-size bounds it (1 MiB by default)
        return (DBusFileDescriptor(adopting: ends[0]), DBusFileDescriptor(adopting: ends[1]))
    }

    /// The capacity `pipe()` asks for: several pages of a listing (64 KiB
    /// each), which in the default 64 KiB never fitted whole, so every page
    /// took two writes and a wake-up of each side.
    public static let pipeBytes: Int32 = 1 << 20

    /// Linux's `F_SETPIPE_SZ` (F_LINUX_SPECIFIC_BASE + 7), which Swift's Glibc module leaves out.
    private static let setPipeSize: Int32 = 1031

    public static func == (lhs: DBusFileDescriptor, rhs: DBusFileDescriptor) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
