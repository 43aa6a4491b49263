import Foundation
import PodsDBus
import Synchronization

/// A notification server on a test's bus (`org.freedesktop.Notifications`,
/// the Desktop Notifications spec's methods and signals) that records what
/// it is asked to show and can click an action.
public final class NotificationServer: Sendable {
    /// One `Notify` call.
    public struct Shown: Sendable {
        public var id: UInt32
        public var appName: String
        public var icon: String
        public var summary: String
        public var body: String
        public var actions: [String]
        public var hints: [String: DBusValue]
    }

    private let connection: DBusConnection
    private let shown = Mutex<[Shown]>([])

    private init(connection: DBusConnection) { self.connection = connection }

    public static func start(on bus: PrivateBus) async throws -> NotificationServer {
        let connection = try await DBusConnection.connect(address: bus.address)
        let server = NotificationServer(connection: connection)
        let path = DBusObjectPath(validLiteral: "/org/freedesktop/Notifications")
        connection.exportStandIn(DBusExportedObject(path: path, interfaces: [DBusInterface(
            name: "org.freedesktop.Notifications",
            methods: [
                DBusMethod("Notify", inputs: [
                    DBusArgument("app_name", .string), DBusArgument("replaces_id", .uint32), DBusArgument("app_icon", .string),
                    DBusArgument("summary", .string), DBusArgument("body", .string), DBusArgument("actions", .array(.string)),
                    DBusArgument("hints", .dictionary(key: .string, value: .variant)), DBusArgument("expire_timeout", .int32),
                ], outputs: [DBusArgument("id", .uint32)]) { arguments in
                    let id = server.shown.withLock { shown in
                        let id = UInt32(shown.count + 1)
                        shown.append(Shown(
                            id: id, appName: arguments[0].stringValue ?? "", icon: arguments[2].stringValue ?? "",
                            summary: arguments[3].stringValue ?? "", body: arguments[4].stringValue ?? "",
                            actions: arguments[5].stringArrayValue ?? [], hints: arguments[6].stringKeyedDictionary ?? [:]))
                        return id
                    }
                    return [.uint32(id)]
                },
                DBusMethod("GetCapabilities", outputs: [DBusArgument("capabilities", .array(.string))]) { _ in
                    [.stringArray(["actions", "body", "icon-static"])]
                },
                DBusMethod("GetServerInformation", outputs: [
                    DBusArgument("name", .string), DBusArgument("vendor", .string), DBusArgument("version", .string),
                    DBusArgument("spec_version", .string),
                ]) { _ in [.string("pods-test"), .string("Pods"), .string("1"), .string("1.2")] },
                DBusMethod("CloseNotification", inputs: [DBusArgument("id", .uint32)]) { _ in [] },
            ],
            signals: [
                DBusSignalDescription("ActionInvoked", arguments: [DBusArgument("id", .uint32), DBusArgument("action_key", .string)]),
                DBusSignalDescription("NotificationClosed", arguments: [DBusArgument("id", .uint32), DBusArgument("reason", .uint32)]),
            ])]))
        _ = try await connection.requestName("org.freedesktop.Notifications")
        return server
    }

    /// What was shown so far.
    public var notifications: [Shown] { shown.withLock { $0 } }

    /// Clicks `action` of notification `id`, as a person would.
    public func click(_ id: UInt32, action: String) throws {
        try connection.emitSignal(path: DBusObjectPath(validLiteral: "/org/freedesktop/Notifications"),
                                  interface: "org.freedesktop.Notifications", member: "ActionInvoked",
                                  arguments: [.uint32(id), .string(action)])
    }
}
