import Foundation
import PodsDBus
import Synchronization

/// What a desktop offers to keep the machine awake, on a test's bus: the
/// XDG desktop portal's `Inhibit` (each inhibition a request object that
/// `Request.Close` ends), GNOME's session manager, or the freedesktop
/// PowerManagement inhibition KDE serves (`Inhibit` → a cookie that
/// `Uninhibit`/`UnInhibit` ends). The real ones need a desktop session
/// (logind, a compositor, the portal's backends) that a test cannot run.
public final class InhibitServer: Sendable {
    public enum Kind: Sendable { case portal, gnome, powerManagement }

    public struct Inhibition: Sendable {
        public var flags: UInt32
        public var reason: String
        public var application: String
        public var active: Bool
    }

    private let connection: DBusConnection
    private let inhibitions = Mutex<[Inhibition]>([])

    private init(connection: DBusConnection) { self.connection = connection }

    /// Every inhibition asked for, in order.
    public var all: [Inhibition] { inhibitions.withLock { $0 } }
    /// Those not ended yet.
    public var active: [Inhibition] { all.filter(\.active) }

    public static func start(_ kind: Kind, on bus: PrivateBus) async throws -> InhibitServer {
        let connection = try await DBusConnection.connect(address: bus.address)
        let server = InhibitServer(connection: connection)
        switch kind {
        case .portal:
            connection.exportStandIn(DBusExportedObject(path: DBusObjectPath(validLiteral: "/org/freedesktop/portal/desktop"), interfaces: [
                DBusInterface(name: "org.freedesktop.portal.Inhibit", methods: [
                    DBusMethod("Inhibit", inputs: [DBusArgument("window", .string), DBusArgument("flags", .uint32),
                                                   DBusArgument("options", .dictionary(key: .string, value: .variant))],
                               outputs: [DBusArgument("handle", .objectPath)]) { arguments in
                        let options = arguments[2].stringKeyedDictionary ?? [:]
                        let number = server.add(Inhibition(flags: Self.uint32(arguments[1]), reason: options["reason"]?.stringValue ?? "",
                                                           application: "", active: true))
                        let handle = DBusObjectPath(validLiteral: "/org/freedesktop/portal/desktop/request").appending(escaping: "r\(number)")
                        connection.exportStandIn(DBusExportedObject(path: handle, interfaces: [
                            DBusInterface(name: "org.freedesktop.portal.Request", methods: [
                                DBusMethod("Close") { _ in
                                    server.end(number)
                                    return []
                                },
                            ]),
                        ]))
                        return [.objectPath(handle)]
                    },
                ]),
            ]))
            _ = try await connection.requestName("org.freedesktop.portal.Desktop")
        case .gnome:
            connection.exportStandIn(DBusExportedObject(path: DBusObjectPath(validLiteral: "/org/gnome/SessionManager"), interfaces: [
                DBusInterface(name: "org.gnome.SessionManager", methods: [
                    DBusMethod("Inhibit", inputs: [DBusArgument("app_id", .string), DBusArgument("toplevel_xid", .uint32),
                                                   DBusArgument("reason", .string), DBusArgument("flags", .uint32)],
                               outputs: [DBusArgument("cookie", .uint32)]) { arguments in
                        let number = server.add(Inhibition(flags: Self.uint32(arguments[3]), reason: arguments[2].stringValue ?? "",
                                                           application: arguments[0].stringValue ?? "", active: true))
                        return [.uint32(UInt32(number))]
                    },
                    DBusMethod("Uninhibit", inputs: [DBusArgument("cookie", .uint32)]) { arguments in
                        server.end(Int(Self.uint32(arguments[0])))
                        return []
                    },
                ]),
            ]))
            _ = try await connection.requestName("org.gnome.SessionManager")
        case .powerManagement:
            connection.exportStandIn(DBusExportedObject(path: DBusObjectPath(validLiteral: "/org/freedesktop/PowerManagement/Inhibit"), interfaces: [
                DBusInterface(name: "org.freedesktop.PowerManagement.Inhibit", methods: [
                    DBusMethod("Inhibit", inputs: [DBusArgument("application", .string), DBusArgument("reason", .string)],
                               outputs: [DBusArgument("cookie", .uint32)]) { arguments in
                        let number = server.add(Inhibition(flags: 0, reason: arguments[1].stringValue ?? "",
                                                           application: arguments[0].stringValue ?? "", active: true))
                        return [.uint32(UInt32(number))]
                    },
                    DBusMethod("UnInhibit", inputs: [DBusArgument("cookie", .uint32)]) { arguments in
                        server.end(Int(Self.uint32(arguments[0])))
                        return []
                    },
                ]),
            ]))
            _ = try await connection.requestName("org.freedesktop.PowerManagement")
        }
        return server
    }

    /// Adds one; its number (from 1) is its cookie or request.
    private func add(_ inhibition: Inhibition) -> Int {
        inhibitions.withLock { inhibitions in
            inhibitions.append(inhibition)
            return inhibitions.count
        }
    }

    private func end(_ number: Int) {
        inhibitions.withLock { inhibitions in
            if inhibitions.indices.contains(number - 1) { inhibitions[number - 1].active = false }
        }
    }

    private static func uint32(_ value: DBusValue) -> UInt32 {
        if case .uint32(let number) = value.unwrapped { return number }
        return 0
    }
}
