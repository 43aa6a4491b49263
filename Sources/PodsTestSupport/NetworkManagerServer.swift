import Foundation
import PodsDBus
import Synchronization

/// NetworkManager's `Metered` property (`NMMetered`: 1 yes, 2 no, 3 guessed
/// yes, 4 guessed no) on a test's own system bus, announced with
/// `PropertiesChanged` as NetworkManager does. The real one manages the
/// machine's network and cannot run for a test.
public final class NetworkManagerServer: Sendable {
    public let bus: PrivateBus
    private let connection: DBusConnection
    private let metered: Mutex<UInt32>
    private static let path = DBusObjectPath(validLiteral: "/org/freedesktop/NetworkManager")

    private init(bus: PrivateBus, connection: DBusConnection, metered: UInt32) {
        self.bus = bus
        self.connection = connection
        self.metered = Mutex(metered)
    }

    public static func start(metered: UInt32) async throws -> NetworkManagerServer {
        let bus = try await PrivateBus.start()
        let connection = try await DBusConnection.connect(address: bus.address)
        let server = NetworkManagerServer(bus: bus, connection: connection, metered: metered)
        connection.exportStandIn(DBusExportedObject(path: path, interfaces: [
            DBusInterface(name: "org.freedesktop.NetworkManager",
                          // Weak: the connection keeps this getter, and the server keeps the bus it ends.
                          properties: [DBusProperty("Metered", .uint32, get: { [weak server] in .uint32(server?.metered.withLock { $0 } ?? 0) })]),
        ]))
        _ = try await connection.requestName("org.freedesktop.NetworkManager")
        return server
    }

    /// The environment that makes a process use this bus as its system bus.
    public var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": bus.address] }

    public func setMetered(_ value: UInt32) throws {
        metered.withLock { $0 = value }
        try connection.emitPropertiesChanged(path: Self.path, interface: "org.freedesktop.NetworkManager", changed: ["Metered": .uint32(value)])
    }
}
