import Foundation
import Logging
import PodsDBus
import PodsSession

/// A client of the freedesktop Secret Service API (`org.freedesktop.secrets`)
/// for Pods' items: each holds one origin's password, with the attributes
/// `application` = `org.pods.Pods`, `origin` and `user`. A "plain" session:
/// the bus between podsd and the service is the user's own.
public struct SecretService: SecretKeeper {
    package static let busName = "org.freedesktop.secrets"
    package static let path = DBusObjectPath(validLiteral: "/org/freedesktop/secrets")
    package static let application = "org.pods.Pods"

    package let connection: DBusConnection
    package let session: DBusObjectPath

    /// The Secret Service when one is on `connection`'s bus or the bus starts
    /// one on demand (GNOME Keyring and KWallet install activation files,
    /// and a desktop session often starts them only at the first call);
    /// nil (passwords go to a private file, with one log line saying why) otherwise.
    public static func find(on connection: DBusConnection, logger: Logger) async -> SecretService? {
        let running = (try? await connection.nameHasOwner(busName)) == true
        if !running {
            // None: the file, which says so when it first keeps a password (CredentialStore).
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

    /// Every origin's credentials Pods keeps there in unlocked keyrings,
    /// and whether some are in a locked one.
    public func loadAll() async throws(SessionError) -> (found: [String: KeptLogin], lockedAway: Bool) {
        do throws(DBusError) { return try await items(unlocking: false) } catch { throw SessionError(.failed, error.message) }
    }

    /// Every origin's credentials Pods keeps there, unlocking a locked
    /// keyring with its prompt as every application does.
    public func unlockAll() async throws(SessionError) -> [String: KeptLogin] {
        do throws(DBusError) { return try await items(unlocking: true).found } catch { throw SessionError(.failed, error.message) }
    }

    private func items(unlocking: Bool) async throws(DBusError) -> (found: [String: KeptLogin], lockedAway: Bool) {
        let found = try await connection.call(
            destination: Self.busName, path: Self.path, interface: "org.freedesktop.Secret.Service", member: "SearchItems",
            arguments: [Self.attributes(["application": Self.application])])
        var unlocked = found.first?.arrayValue?.compactMap(\.objectPathValue) ?? []
        let locked = found.count > 1 ? found[1].arrayValue?.compactMap(\.objectPathValue) ?? [] : []
        if unlocking, !locked.isEmpty { unlocked += try await unlock(locked) }
        let lockedAway = !unlocking && !locked.isEmpty
        guard !unlocked.isEmpty else { return ([:], lockedAway) }
        let secrets = try await connection.call(
            destination: Self.busName, path: Self.path, interface: "org.freedesktop.Secret.Service", member: "GetSecrets",
            arguments: [.array(.objectPath, unlocked.map(DBusValue.objectPath)), .objectPath(session)])
        guard case .dictionary(_, _, let entries) = secrets.first ?? .array(.byte, []) else { return ([:], lockedAway) }
        var result: [String: KeptLogin] = [:]
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
                result[origin] = KeptLogin(user: user, password: String(decoding: bytes, as: UTF8.self))
            }
        }
        return (result, lockedAway)
    }

    /// Stores (replacing) the password kept under `key` (an origin) in the
    /// default collection, made or unlocked first when it must be.
    public func store(_ credentials: KeptLogin, key: String) async throws(SessionError) {
        do throws(DBusError) { try await create(credentials, origin: key) } catch { throw SessionError(.failed, error.message) }
    }

    private func create(_ credentials: KeptLogin, origin: String) async throws(DBusError) {
        let collection = try await writableCollection()
        let properties: [String: DBusValue] = [
            "org.freedesktop.Secret.Item.Label": .string("Pods: \(origin)"),
            "org.freedesktop.Secret.Item.Attributes": Self.attributes(["application": Self.application, "origin": origin, "user": credentials.user]),
        ]
        let secret = DBusValue.structure([
            .objectPath(session), .array(.byte, []), .array(.byte, Array(credentials.password.utf8).map(DBusValue.byte)),
            .string("text/plain; charset=utf8"),
        ])
        let reply = try await connection.call(
            destination: Self.busName, path: collection, interface: "org.freedesktop.Secret.Collection", member: "CreateItem",
            arguments: [.variantDictionary(properties), secret, .bool(true)])
        if let prompt = reply.last?.objectPathValue, prompt != Self.noPrompt {
            guard try await complete(prompt, "keep the password").objectPathValue != nil else {
                throw DBusError.failed("the keyring kept no password")
            }
        }
    }

    // MARK: - Collections and prompts, as libsecret does them

    /// "No prompt needed" and "no object", in the API's words.
    private static let noPrompt = DBusObjectPath(validLiteral: "/")

    /// The default collection, unlocked: made through the service (with its
    /// prompt, which asks the new keyring's password) when there is none
    /// (a new account, a session that never unlocked one), and unlocked
    /// (with its prompt) when locked.
    private func writableCollection() async throws(DBusError) -> DBusObjectPath {
        let alias = try await connection.call(
            destination: Self.busName, path: Self.path, interface: "org.freedesktop.Secret.Service", member: "ReadAlias",
            arguments: [.string("default")])
        var collection = alias.first?.objectPathValue ?? Self.noPrompt
        if collection == Self.noPrompt {
            let made = try await connection.call(
                destination: Self.busName, path: Self.path, interface: "org.freedesktop.Secret.Service", member: "CreateCollection",
                arguments: [.variantDictionary(["org.freedesktop.Secret.Collection.Label": .string("Login")]), .string("default")])
            collection = made.first?.objectPathValue ?? Self.noPrompt
            if collection == Self.noPrompt, let prompt = made.last?.objectPathValue, prompt != Self.noPrompt {
                collection = try await complete(prompt, "make a keyring").objectPathValue ?? Self.noPrompt
            }
            guard collection != Self.noPrompt else { throw DBusError.failed("the Secret Service made no keyring") }
            return collection
        }
        let locked = try await connection.call(
            destination: Self.busName, path: collection, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string("org.freedesktop.Secret.Collection"), .string("Locked")])
        if locked.first?.unwrapped.boolValue == true {
            guard try await unlock([collection]).contains(collection) else { throw DBusError.failed("the keyring stayed locked") }
        }
        return collection
    }

    /// Unlocks `objects` (collections or items), with the keyring's prompt
    /// when it needs one; returns those unlocked.
    private func unlock(_ objects: [DBusObjectPath]) async throws(DBusError) -> [DBusObjectPath] {
        let reply = try await connection.call(
            destination: Self.busName, path: Self.path, interface: "org.freedesktop.Secret.Service", member: "Unlock",
            arguments: [.array(.objectPath, objects.map(DBusValue.objectPath))])
        var unlocked = reply.first?.arrayValue?.compactMap(\.objectPathValue) ?? []
        if let prompt = reply.last?.objectPathValue, prompt != Self.noPrompt {
            unlocked += try await complete(prompt, "unlock the keyring").arrayValue?.compactMap(\.objectPathValue) ?? []
        }
        return unlocked
    }

    /// How long a prompt may wait for the listener before it is dismissed:
    /// well inside the 120 s a client waits for `SubscribeWithCredentials`,
    /// so the listener hears why (ADVERSARIAL-5, 4: at 120 s both ran out together).
    package static let promptTimeout = Duration.seconds(90)

    /// Shows `prompt` (the desktop's own dialog) and waits for its
    /// `Completed`; returns its result. Dismissed, or unanswered within
    /// `promptTimeout`, is one error naming what it was for (`purpose`).
    private func complete(_ prompt: DBusObjectPath, _ purpose: String) async throws(DBusError) -> DBusValue {
        // Listening before asking: a service without a prompter answers at once. Only the keyring's
        // owner may answer (REVIEW-4, N12: any client could say a prompt was done); it signals its
        // caller by name, so it is known by its unique name.
        let owner = try await connection.owner(of: Self.busName)
        let completions = try await connection.signals(matching: DBusSignalMatch(
            sender: owner, path: prompt, interface: "org.freedesktop.Secret.Prompt", member: "Completed"))
        _ = try await connection.call(destination: Self.busName, path: prompt, interface: "org.freedesktop.Secret.Prompt",
                                      member: "Prompt", arguments: [.string("")])
        let answer = await withTaskGroup(of: DBusSignal?.self) { group in
            group.addTask {
                for await signal in completions { return signal }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: Self.promptTimeout)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        guard let answer, answer.arguments.count == 2 else {
            _ = try? await connection.call(destination: Self.busName, path: prompt, interface: "org.freedesktop.Secret.Prompt",
                                           member: "Dismiss")
            throw DBusError.failed("the keyring's prompt to \(purpose) was not answered within \(Self.promptTimeout.components.seconds) s; nothing was kept")
        }
        guard answer.arguments[0].boolValue == false else {
            throw DBusError.failed("the keyring's prompt to \(purpose) was dismissed; nothing was kept")
        }
        return answer.arguments[1].unwrapped
    }

    package static func attributes(_ values: [String: String]) -> DBusValue {
        .dictionary(key: .string, value: .string, values.sorted { $0.key < $1.key }.map { DBusDictionaryEntry(.string($0.key), .string($0.value)) })
    }
}
