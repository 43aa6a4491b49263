import Foundation
import PodsDBus
import Synchronization

/// The XDG desktop portal's `NetworkMonitor` on a test's bus: `GetMetered`
/// answers what the test set, and `changed` is sent when it sets another,
/// as the portal does when the network changes. The real portal needs its
/// backends and a desktop session.
public final class NetworkMonitorServer: Sendable {
    private let connection: DBusConnection
    private let metered: Mutex<Bool>
    private static let path = DBusObjectPath(validLiteral: "/org/freedesktop/portal/desktop")

    private init(connection: DBusConnection, metered: Bool) {
        self.connection = connection
        self.metered = Mutex(metered)
    }

    public static func start(on bus: PrivateBus, metered: Bool) async throws -> NetworkMonitorServer {
        let connection = try await DBusConnection.connect(address: bus.address)
        let server = NetworkMonitorServer(connection: connection, metered: metered)
        connection.exportStandIn(DBusExportedObject(path: path, interfaces: [
            DBusInterface(name: "org.freedesktop.portal.NetworkMonitor", methods: [
                DBusMethod("GetMetered", outputs: [DBusArgument("metered", .bool)]) { _ in [.bool(server.metered.withLock { $0 })] },
                DBusMethod("GetAvailable", outputs: [DBusArgument("available", .bool)]) { _ in [.bool(true)] },
            ], signals: [DBusSignalDescription("changed")]),
        ]))
        _ = try await connection.requestName("org.freedesktop.portal.Desktop")
        return server
    }

    /// Sets what `GetMetered` answers and says the network changed.
    public func setMetered(_ metered: Bool) throws {
        self.metered.withLock { $0 = metered }
        try connection.emitSignal(path: Self.path, interface: "org.freedesktop.portal.NetworkMonitor", member: "changed")
    }
}
