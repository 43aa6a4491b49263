import Foundation
import Glibc
import PodsDBus
import Synchronization

/// logind's sleep side (`org.freedesktop.login1`) on a test's own "system"
/// bus: `Inhibit` hands out a lock as logind does (the write end of a pipe;
/// the lock is held until every copy of it is closed, which the kept read
/// end sees as end-of-file), and `PrepareForSleep` is sent when the test
/// says the machine sleeps or wakes. The real logind manages the machine's
/// own power and cannot run for a test.
public final class LogindServer: Sendable {
    public struct Lock: Sendable {
        public var what: String
        public var who: String
        public var why: String
        public var mode: String
        /// The read end: end-of-file once the holder let the lock go.
        let released: DBusFileDescriptor
    }

    public let bus: PrivateBus
    private let connection: DBusConnection
    private let locks = Mutex<[Lock]>([])
    private static let path = DBusObjectPath(validLiteral: "/org/freedesktop/login1")

    private init(bus: PrivateBus, connection: DBusConnection) {
        self.bus = bus
        self.connection = connection
    }

    /// Starts a bus of its own (the test's system bus) with logind on it.
    public static func start() async throws -> LogindServer {
        let bus = try await PrivateBus.start()
        let connection = try await DBusConnection.connect(address: bus.address)
        let server = LogindServer(bus: bus, connection: connection)
        connection.exportStandIn(DBusExportedObject(path: path, interfaces: [
            DBusInterface(name: "org.freedesktop.login1.Manager", methods: [
                DBusMethod("Inhibit", inputs: [DBusArgument("what", .string), DBusArgument("who", .string),
                                               DBusArgument("why", .string), DBusArgument("mode", .string)],
                           outputs: [DBusArgument("fd", .unixFD)]) { [weak server] arguments in
                    // Weak: the connection keeps this handler, and the server keeps the bus it ends.
                    guard let server else { throw DBusError.failed("logind stand-in gone") }
                    let (read, write) = try DBusFileDescriptor.pipe()
                    server.locks.withLock {
                        $0.append(Lock(what: arguments[0].stringValue ?? "", who: arguments[1].stringValue ?? "",
                                       why: arguments[2].stringValue ?? "", mode: arguments[3].stringValue ?? "", released: read))
                    }
                    return [.unixFD(write)]  // libdbus sends a copy; this one closes with the reply
                },
            ], signals: [DBusSignalDescription("PrepareForSleep", arguments: [DBusArgument("start", .bool)])]),
        ]))
        _ = try await connection.requestName("org.freedesktop.login1")
        return server
    }

    /// The environment that makes a process use this bus as its system bus.
    public var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": bus.address] }

    /// Every lock handed out, in order.
    public var all: [Lock] { locks.withLock { $0 } }

    /// The locks still held (their holder has not closed them).
    public var held: [Lock] { all.filter { !Self.isReleased($0.released) } }

    /// Says the machine is about to sleep (true) or has woken (false).
    public func prepareForSleep(_ start: Bool) throws {
        try connection.emitSignal(path: Self.path, interface: "org.freedesktop.login1.Manager", member: "PrepareForSleep",
                                  arguments: [.bool(start)])
    }

    private static func isReleased(_ read: DBusFileDescriptor) -> Bool {
        var poller = pollfd(fd: read.rawValue, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 0) == 1 else { return false }
        return poller.revents & Int16(POLLHUP) != 0
    }
}
