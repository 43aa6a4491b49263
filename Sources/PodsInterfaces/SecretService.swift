import Foundation
import Logging
import PodsDBus
import PodsHTTP
import PodsSession

/// A client of the freedesktop Secret Service API (`org.freedesktop.secrets`)
/// for Pods' items: each holds one origin's password, with the attributes
/// `application` = `org.pods.Pods`, `origin` and `user`. A "plain" session:
/// the bus between podsd and the service is the user's own.
public struct SecretService: SecretKeeper {
    package static let busName = "org.freedesktop.secrets"
    package static let path = DBusObjectPath(validLiteral: "/org/freedesktop/secrets")
    package static let defaultCollection = DBusObjectPath(validLiteral: "/org/freedesktop/secrets/aliases/default")
    package static let application = "org.pods.Pods"

    package let connection: DBusConnection
    package let session: DBusObjectPath

    /// The Secret Service when one is on `connection`'s bus or the bus starts
    /// one on demand (GNOME Keyring and KWallet install activation files,
    /// and a desktop session often starts them only at the first call);
    /// nil (passwords go to a private file) otherwise.
    public static func find(on connection: DBusConnection, logger: Logger) async -> SecretService? {
        let running = (try? await connection.nameHasOwner(busName)) == true
        if !running {
            guard (try? await connection.activatableNames())?.contains(busName) == true else { return nil }
        }
        do throws(DBusError) {
            // The first call starts an activatable one; a keyring that does not come up is not waited for long.
            return try await open(connection, timeout: .seconds(running ? 25 : 10))
        } catch {
            logger.warning("the Secret Service did not open a session (\(error.message)); passwords are kept in a private file instead")
            return nil
        }
    }

    /// A session with the service; the call starts it when it is activatable and not running.
    package static func open(_ connection: DBusConnection, timeout: Duration = .seconds(25)) async throws(DBusError) -> SecretService {
        let reply = try await connection.call(destination: busName, path: path, interface: "org.freedesktop.Secret.Service",
                                              member: "OpenSession", arguments: [.string("plain"), .variant(.string(""))],
                                              timeout: timeout)
        guard reply.count == 2, let session = reply[1].objectPathValue else {
            throw DBusError.failed("the Secret Service opened no session")
        }
        return SecretService(connection: connection, session: session)
    }

    /// Every origin's credentials Pods keeps there (locked items are skipped).
    public func loadAll() async throws(SessionError) -> [String: HTTPCredentials] {
        do throws(DBusError) { return try await items() } catch { throw SessionError(.failed, error.message) }
    }

    private func items() async throws(DBusError) -> [String: HTTPCredentials] {
        let found = try await connection.call(
            destination: Self.busName, path: Self.path, interface: "org.freedesktop.Secret.Service", member: "SearchItems",
            arguments: [Self.attributes(["application": Self.application])])
        let unlocked = found.first?.arrayValue?.compactMap(\.objectPathValue) ?? []
        guard !unlocked.isEmpty else { return [:] }
        let secrets = try await connection.call(
            destination: Self.busName, path: Self.path, interface: "org.freedesktop.Secret.Service", member: "GetSecrets",
            arguments: [.array(.objectPath, unlocked.map(DBusValue.objectPath)), .objectPath(session)])
        guard case .dictionary(_, _, let entries) = secrets.first ?? .array(.byte, []) else { return [:] }
        var result: [String: HTTPCredentials] = [:]
        for entry in entries {
            guard let item = entry.key.objectPathValue, case .structure(let fields) = entry.value.unwrapped, fields.count == 4,
                  let bytes = fields[2].arrayValue?.compactMap({ value -> UInt8? in if case .byte(let byte) = value { byte } else { nil } })
            else { continue }
            let attributes = try await connection.call(
                destination: Self.busName, path: item, interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string("org.freedesktop.Secret.Item"), .string("Attributes")])
            guard case .dictionary(_, _, let pairs) = attributes.first?.unwrapped ?? .array(.byte, []) else { continue }
            var values: [String: String] = [:]
            for pair in pairs { if let key = pair.key.stringValue, let value = pair.value.stringValue { values[key] = value } }
            if let origin = values["origin"], let user = values["user"] {
                result[origin] = HTTPCredentials(user: user, password: String(decoding: bytes, as: UTF8.self))
            }
        }
        return result
    }

    /// Stores (replacing) the password kept under `key` (an origin) in the default collection.
    public func store(_ credentials: HTTPCredentials, key: String) async throws(SessionError) {
        do throws(DBusError) { try await create(credentials, origin: key) } catch { throw SessionError(.failed, error.message) }
    }

    private func create(_ credentials: HTTPCredentials, origin: String) async throws(DBusError) {
        let properties: [String: DBusValue] = [
            "org.freedesktop.Secret.Item.Label": .string("Pods: \(origin)"),
            "org.freedesktop.Secret.Item.Attributes": Self.attributes(["application": Self.application, "origin": origin, "user": credentials.user]),
        ]
        let secret = DBusValue.structure([
            .objectPath(session), .array(.byte, []), .array(.byte, Array(credentials.password.utf8).map(DBusValue.byte)),
            .string("text/plain; charset=utf8"),
        ])
        let reply = try await connection.call(
            destination: Self.busName, path: Self.defaultCollection, interface: "org.freedesktop.Secret.Collection", member: "CreateItem",
            arguments: [.variantDictionary(properties), secret, .bool(true)])
        if let prompt = reply.last?.objectPathValue, prompt.rawValue != "/" {
            throw DBusError.failed("the keyring is locked: unlock it and subscribe again")
        }
    }

    package static func attributes(_ values: [String: String]) -> DBusValue {
        .dictionary(key: .string, value: .string, values.sorted { $0.key < $1.key }.map { DBusDictionaryEntry(.string($0.key), .string($0.value)) })
    }
}
