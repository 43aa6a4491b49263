import Foundation
import PodsDBus
import Synchronization

/// A Secret Service (`org.freedesktop.secrets`) on a test's bus that keeps
/// items in memory, answering as the freedesktop Secret Service API says:
/// "plain" sessions, `SearchItems` by attributes, `GetSecrets`,
/// `CreateItem` in the default collection (replacing an item with the
/// same attributes), and each item's `Attributes` property.
public final class SecretServiceServer: Sendable {
    public struct Item: Sendable {
        public var path: DBusObjectPath
        public var label: String
        public var attributes: [String: String]
        public var secret: [UInt8]
    }

    private let connection: DBusConnection
    private let items = Mutex<[Item]>([])

    private init(connection: DBusConnection) { self.connection = connection }

    public static func start(on bus: PrivateBus) async throws -> SecretServiceServer {
        let connection = try await DBusConnection.connect(address: bus.address)
        let server = SecretServiceServer(connection: connection)
        let stringMap = DBusType.dictionary(key: .string, value: .string)
        let secret = DBusType.structure([.objectPath, .array(.byte), .array(.byte), .string])
        connection.exportStandIn(DBusExportedObject(path: DBusObjectPath(validLiteral: "/org/freedesktop/secrets"), interfaces: [DBusInterface(
            name: "org.freedesktop.Secret.Service",
            methods: [
                DBusMethod("OpenSession", inputs: [DBusArgument("algorithm", .string), DBusArgument("input", .variant)],
                           outputs: [DBusArgument("output", .variant), DBusArgument("result", .objectPath)]) { arguments in
                    guard arguments[0].stringValue == "plain" else {
                        throw DBusError(name: "org.freedesktop.DBus.Error.NotSupported", message: "only plain")
                    }
                    return [.variant(.string("")), .objectPath(DBusObjectPath(validLiteral: "/org/freedesktop/secrets/session/s1"))]
                },
                DBusMethod("SearchItems", inputs: [DBusArgument("attributes", stringMap)],
                           outputs: [DBusArgument("unlocked", .array(.objectPath)), DBusArgument("locked", .array(.objectPath))]) { arguments in
                    let wanted = Self.strings(arguments[0])
                    let found = server.items.withLock { $0.filter { item in wanted.allSatisfy { item.attributes[$0.key] == $0.value } } }
                    return [.array(.objectPath, found.map { .objectPath($0.path) }), .array(.objectPath, [])]
                },
                DBusMethod("GetSecrets", inputs: [DBusArgument("items", .array(.objectPath)), DBusArgument("session", .objectPath)],
                           outputs: [DBusArgument("secrets", .dictionary(key: .objectPath, value: secret))]) { arguments in
                    let paths = Set(arguments[0].arrayValue?.compactMap(\.objectPathValue) ?? [])
                    let session = arguments[1]
                    let entries = server.items.withLock { $0.filter { paths.contains($0.path) } }.map { item in
                        DBusDictionaryEntry(.objectPath(item.path), .structure([
                            session, .array(.byte, []), .array(.byte, item.secret.map(DBusValue.byte)), .string("text/plain"),
                        ]))
                    }
                    return [.dictionary(key: .objectPath, value: secret, entries)]
                },
            ])]))
        connection.exportStandIn(DBusExportedObject(path: DBusObjectPath(validLiteral: "/org/freedesktop/secrets/aliases/default"),
                                             interfaces: [DBusInterface(
            name: "org.freedesktop.Secret.Collection",
            methods: [
                DBusMethod("CreateItem", inputs: [
                    DBusArgument("properties", .dictionary(key: .string, value: .variant)), DBusArgument("secret", secret),
                    DBusArgument("replace", .bool),
                ], outputs: [DBusArgument("item", .objectPath), DBusArgument("prompt", .objectPath)]) { arguments in
                    let properties = arguments[0].stringKeyedDictionary ?? [:]
                    let attributes = Self.strings(properties["org.freedesktop.Secret.Item.Attributes"] ?? .array(.byte, []))
                    guard case .structure(let fields) = arguments[1], fields.count == 4 else { throw DBusError.invalidArgs("secret") }
                    let bytes = fields[2].arrayValue?.compactMap { value -> UInt8? in if case .byte(let byte) = value { byte } else { nil } } ?? []
                    let path = server.items.withLock { items in
                        if arguments[2].boolValue == true { items.removeAll { $0.attributes == attributes } }
                        let path = DBusObjectPath(validLiteral: "/org/freedesktop/secrets/collection/login").appending(escaping: "i\(items.count + 1)")
                        items.append(Item(path: path, label: properties["org.freedesktop.Secret.Item.Label"]?.stringValue ?? "",
                                          attributes: attributes, secret: bytes))
                        return path
                    }
                    connection.exportStandIn(DBusExportedObject(path: path, interfaces: [DBusInterface(
                        name: "org.freedesktop.Secret.Item", methods: [],
                        properties: [DBusProperty("Attributes", stringMap, get: {
                            let values = server.items.withLock { $0.first { $0.path == path }?.attributes } ?? [:]
                            return .dictionary(key: .string, value: .string, values.map { DBusDictionaryEntry(.string($0.key), .string($0.value)) })
                        })])]))
                    return [.objectPath(path), .objectPath(DBusObjectPath(validLiteral: "/"))]
                },
            ])]))
        _ = try await connection.requestName("org.freedesktop.secrets")
        return server
    }

    /// What is stored.
    public var stored: [Item] { items.withLock { $0 } }

    private static func strings(_ value: DBusValue) -> [String: String] {
        guard case .dictionary(_, _, let entries) = value.unwrapped else { return [:] }
        var result: [String: String] = [:]
        for entry in entries { if let key = entry.key.stringValue, let text = entry.value.stringValue { result[key] = text } }
        return result
    }
}
