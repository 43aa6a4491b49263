import Foundation
import PodsDBus
import Synchronization

/// A Secret Service (`org.freedesktop.secrets`) on a test's bus that keeps
/// items in memory, answering as the freedesktop Secret Service API says:
/// "plain" sessions, `SearchItems` by attributes (unlocked and locked),
/// `GetSecrets`, `ReadAlias`, `CreateCollection`, `Unlock`, `CreateItem`
/// (replacing an item with the same attributes), each item's `Attributes`
/// property, and prompts (`Prompt.Prompt` → `Completed`).
///
/// For what the real GNOME Keyring (`GnomeKeyring`) cannot do on a test's
/// bus: answer a prompt. Its prompts are answered as `promptAnswer` says,
/// after `promptDelay`.
public final class SecretServiceServer: Sendable {
    public struct Item: Sendable {
        public var path: DBusObjectPath
        public var label: String
        public var attributes: [String: String]
        public var secret: [UInt8]
    }

    /// The default collection when the service starts.
    public enum Collection: Sendable { case unlocked, locked, missing }
    /// What the listener does with a prompt.
    public enum PromptAnswer: Sendable { case accept, dismiss, ignore }

    private struct State {
        var items: [Item] = []
        var collection: Collection
        var prompts = 0
        var promptsShown = 0
    }

    private let connection: DBusConnection
    private let state: Mutex<State>
    private let promptAnswer: PromptAnswer
    private let promptDelay: Duration
    /// Set by `answerPromptsNow()`: prompts waiting out `promptDelay` are answered at once.
    private let answerNow = Atomic<Bool>(false)

    private static let root = DBusObjectPath(validLiteral: "/org/freedesktop/secrets")
    private static let login = DBusObjectPath(validLiteral: "/org/freedesktop/secrets/collection/login")
    private static let none = DBusObjectPath(validLiteral: "/")
    private static let stringMap = DBusType.dictionary(key: .string, value: .string)
    private static let secretType = DBusType.structure([.objectPath, .array(.byte), .array(.byte), .string])

    /// How long `OpenSession` takes to answer (a hung keyring: longer than its callers wait).
    private let openDelay: Duration

    private init(connection: DBusConnection, collection: Collection, promptAnswer: PromptAnswer, promptDelay: Duration, openDelay: Duration) {
        self.connection = connection
        self.state = Mutex(State(collection: collection))
        self.promptAnswer = promptAnswer
        self.promptDelay = promptDelay
        self.openDelay = openDelay
    }

    public static func start(on bus: PrivateBus, collection: Collection = .unlocked, promptAnswer: PromptAnswer = .accept,
                             promptDelay: Duration = .milliseconds(100), openDelay: Duration = .zero,
                             items: [Item] = []) async throws -> SecretServiceServer {
        let connection = try await DBusConnection.connect(address: bus.address)
        let server = SecretServiceServer(connection: connection, collection: collection, promptAnswer: promptAnswer, promptDelay: promptDelay,
                                         openDelay: openDelay)
        server.state.withLock { $0.items = items }
        for item in items { server.exportItem(item.path) }
        connection.exportStandIn(DBusExportedObject(path: root, interfaces: [server.serviceInterface()]))
        server.exportCollection()
        _ = try await connection.requestName("org.freedesktop.secrets")
        return server
    }

    /// What is stored.
    public var stored: [Item] { state.withLock { $0.items } }
    /// How many prompts the listener was shown.
    public var promptsShown: Int { state.withLock { $0.promptsShown } }
    /// Answers the prompts shown (and any shown later) without waiting out `promptDelay`.
    public func answerPromptsNow() { answerNow.store(true, ordering: .relaxed) }

    /// Whether the default collection is locked.
    public var isLocked: Bool { state.withLock { $0.collection == .locked } }

    /// An item as the service keeps it, for `start(items:)`.
    public static func item(_ number: Int, origin: String, user: String, password: String) -> Item {
        Item(path: login.appending(escaping: "i\(number)"), label: "Pods: \(origin)",
             attributes: ["application": "org.pods.Pods", "origin": origin, "user": user], secret: Array(password.utf8))
    }

    private func serviceInterface() -> DBusInterface {
        DBusInterface(name: "org.freedesktop.Secret.Service", methods: [
            DBusMethod("OpenSession", inputs: [DBusArgument("algorithm", .string), DBusArgument("input", .variant)],
                       outputs: [DBusArgument("output", .variant), DBusArgument("result", .objectPath)]) { arguments in
                guard arguments[0].stringValue == "plain" else {
                    throw DBusError(name: "org.freedesktop.DBus.Error.NotSupported", message: "only plain")
                }
                if self.openDelay > .zero { try await Task.sleep(for: self.openDelay) }
                return [.variant(.string("")), .objectPath(DBusObjectPath(validLiteral: "/org/freedesktop/secrets/session/s1"))]
            },
            DBusMethod("SearchItems", inputs: [DBusArgument("attributes", Self.stringMap)],
                       outputs: [DBusArgument("unlocked", .array(.objectPath)), DBusArgument("locked", .array(.objectPath))]) { [self] arguments in
                let wanted = Self.strings(arguments[0])
                let (found, locked) = state.withLock { state in
                    (state.items.filter { item in wanted.allSatisfy { item.attributes[$0.key] == $0.value } }, state.collection == .locked)
                }
                let paths = DBusValue.array(.objectPath, found.map { .objectPath($0.path) }), empty = DBusValue.array(.objectPath, [])
                return locked ? [empty, paths] : [paths, empty]
            },
            DBusMethod("GetSecrets", inputs: [DBusArgument("items", .array(.objectPath)), DBusArgument("session", .objectPath)],
                       outputs: [DBusArgument("secrets", .dictionary(key: .objectPath, value: Self.secretType))]) { [self] arguments in
                let paths = Set(arguments[0].arrayValue?.compactMap(\.objectPathValue) ?? [])
                let session = arguments[1]
                let entries = state.withLock { state in state.collection == .locked ? [] : state.items.filter { paths.contains($0.path) } }
                    .map { item in
                        DBusDictionaryEntry(.objectPath(item.path), .structure([
                            session, .array(.byte, []), .array(.byte, item.secret.map(DBusValue.byte)), .string("text/plain"),
                        ]))
                    }
                return [.dictionary(key: .objectPath, value: Self.secretType, entries)]
            },
            DBusMethod("ReadAlias", inputs: [DBusArgument("name", .string)], outputs: [DBusArgument("collection", .objectPath)]) { [self] arguments in
                guard arguments[0].stringValue == "default" else { return [.objectPath(Self.none)] }
                return [.objectPath(state.withLock { $0.collection == .missing } ? Self.none : Self.login)]
            },
            DBusMethod("CreateCollection", inputs: [DBusArgument("properties", .dictionary(key: .string, value: .variant)),
                                                    DBusArgument("alias", .string)],
                       outputs: [DBusArgument("collection", .objectPath), DBusArgument("prompt", .objectPath)]) { [self] _ in
                // Making a keyring asks for its password: always a prompt.
                let prompt = makePrompt { [self] in
                    state.withLock { $0.collection = .unlocked }
                    return .objectPath(Self.login)
                }
                return [.objectPath(Self.none), .objectPath(prompt)]
            },
            DBusMethod("Unlock", inputs: [DBusArgument("objects", .array(.objectPath))],
                       outputs: [DBusArgument("unlocked", .array(.objectPath)), DBusArgument("prompt", .objectPath)]) { [self] arguments in
                let objects = arguments[0]
                guard state.withLock({ $0.collection == .locked }) else { return [objects, .objectPath(Self.none)] }
                let prompt = makePrompt { [self] in
                    state.withLock { $0.collection = .unlocked }
                    return objects
                }
                return [.array(.objectPath, []), .objectPath(prompt)]
            },
        ])
    }

    /// The login collection (`Locked`, `CreateItem`), exported whether or
    /// not it exists yet: `ReadAlias` says which.
    private func exportCollection() {
        connection.exportStandIn(DBusExportedObject(path: Self.login, interfaces: [DBusInterface(
            name: "org.freedesktop.Secret.Collection",
            methods: [
                DBusMethod("CreateItem", inputs: [
                    DBusArgument("properties", .dictionary(key: .string, value: .variant)), DBusArgument("secret", Self.secretType),
                    DBusArgument("replace", .bool),
                ], outputs: [DBusArgument("item", .objectPath), DBusArgument("prompt", .objectPath)]) { [self] arguments in
                    guard state.withLock({ $0.collection == .unlocked }) else {
                        throw DBusError(name: "org.freedesktop.Secret.Error.IsLocked", message: "Cannot create an item in a locked collection")
                    }
                    let properties = arguments[0].stringKeyedDictionary ?? [:]
                    let attributes = Self.strings(properties["org.freedesktop.Secret.Item.Attributes"] ?? .array(.byte, []))
                    guard case .structure(let fields) = arguments[1], fields.count == 4 else { throw DBusError.invalidArgs("secret") }
                    let bytes = fields[2].arrayValue?.compactMap { value -> UInt8? in if case .byte(let byte) = value { byte } else { nil } } ?? []
                    let path = state.withLock { state in
                        if arguments[2].boolValue == true { state.items.removeAll { $0.attributes == attributes } }
                        let path = Self.login.appending(escaping: "i\(state.items.count + 100)")
                        state.items.append(Item(path: path, label: properties["org.freedesktop.Secret.Item.Label"]?.stringValue ?? "",
                                                attributes: attributes, secret: bytes))
                        return path
                    }
                    exportItem(path)
                    return [.objectPath(path), .objectPath(Self.none)]
                },
            ],
            properties: [DBusProperty("Locked", .bool, get: { [self] in .bool(state.withLock { $0.collection != .unlocked }) })])]))
    }

    private func exportItem(_ path: DBusObjectPath) {
        connection.exportStandIn(DBusExportedObject(path: path, interfaces: [DBusInterface(
            name: "org.freedesktop.Secret.Item", methods: [],
            properties: [DBusProperty("Attributes", Self.stringMap, get: { [self] in
                let values = state.withLock { $0.items.first { $0.path == path }?.attributes } ?? [:]
                return .dictionary(key: .string, value: .string, values.map { DBusDictionaryEntry(.string($0.key), .string($0.value)) })
            })])]))
    }

    /// A prompt object: `Prompt` shows it (counted), and after `promptDelay`
    /// it completes as `promptAnswer` says, accepted with `result()`.
    private func makePrompt(_ result: @escaping @Sendable () -> DBusValue) -> DBusObjectPath {
        let number = state.withLock { state in
            state.prompts += 1
            return state.prompts
        }
        let path = Self.root.appending(escaping: "prompt").appending(escaping: "p\(number)")
        connection.exportStandIn(DBusExportedObject(path: path, interfaces: [DBusInterface(
            name: "org.freedesktop.Secret.Prompt",
            methods: [
                DBusMethod("Prompt", inputs: [DBusArgument("window-id", .string)]) { [self] _ in
                    state.withLock { $0.promptsShown += 1 }
                    let (answer, delay, connection) = (promptAnswer, promptDelay, connection)
                    Task { [self] in
                        let shown = ContinuousClock.now
                        while ContinuousClock.now - shown < delay, !answerNow.load(ordering: .relaxed) {
                            try? await Task.sleep(for: .milliseconds(20))
                        }
                        switch answer {
                        case .accept:
                            try? connection.emitSignal(path: path, interface: "org.freedesktop.Secret.Prompt", member: "Completed",
                                                       arguments: [.bool(false), .variant(result())])
                        case .dismiss:
                            try? connection.emitSignal(path: path, interface: "org.freedesktop.Secret.Prompt", member: "Completed",
                                                       arguments: [.bool(true), .variant(.string(""))])
                        case .ignore:
                            break
                        }
                    }
                    return []
                },
                DBusMethod("Dismiss") { _ in [] },
            ])]))
        return path
    }

    private static func strings(_ value: DBusValue) -> [String: String] {
        guard case .dictionary(_, _, let entries) = value.unwrapped else { return [:] }
        var result: [String: String] = [:]
        for entry in entries { if let key = entry.key.stringValue, let text = entry.value.stringValue { result[key] = text } }
        return result
    }
}
