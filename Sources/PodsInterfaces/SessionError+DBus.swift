import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsSession

/// The one place the session's errors get their D-Bus names.
extension SessionError: DBusErrorConvertible {
    public var dbusError: DBusError {
        switch kind {
        case .notFound: DBusError(name: LibraryNames.Error.notFound, message: message)
        case .ambiguous: DBusError(name: LibraryNames.Error.ambiguous, message: message)
        case .duplicate: DBusError(name: LibraryNames.Error.duplicate, message: message)
        case .invalidArgument: .invalidArgs(message)
        case .failed: DBusError(name: LibraryNames.Error.failed, message: message)
        }
    }
}

extension DBusError {
    init(_ error: SessionError) { self = error.dbusError }
}

/// Runs a session call where the interface throws D-Bus errors.
func onBus<T>(_ body: () async throws(SessionError) -> T) async throws(DBusError) -> T {
    do { return try await body() } catch { throw DBusError(error) }
}

/// The library interface's SQLite work (`LibraryWork`), its error as the
/// D-Bus reply's.
enum LibraryCall {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws(LibraryError) -> T) async throws(DBusError) -> T {
        try await LibraryWork.run(body) { DBusError(SessionError($0)) }
    }
}
