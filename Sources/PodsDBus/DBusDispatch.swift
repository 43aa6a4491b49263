internal import CDBus

/// What the router does with an incoming method call, decided from the call
/// and the exported objects alone: answer it at once (an error, `Peer`,
/// `Introspect`, a property read from a snapshot) or run a handler.
///
/// Kept apart from the connection's loop so that every client's bytes can
/// be fuzzed through it (`Tests/Fuzz/dbus-dispatch.swift`): the signature
/// is checked before any argument is read, and reading stops at
/// `DBusRouter.maximumArgumentValues`, so a call podsd cannot take costs
/// nothing and one it can take costs a bounded amount.
enum DBusDispatch {
    enum Route {
        /// Answered on the connection's thread.
        case answer(Result<[DBusValue], DBusError>)
        /// A handler to run in the sender's queue for the object.
        case call(Call)
    }

    /// A handler's work, with what the queue needs to know of it.
    struct Call: Sendable {
        let path: DBusObjectPath
        let member: String
        let work: @Sendable () async throws -> Answer
        let timeout: Duration
        /// Dropped when the caller leaves the bus (a read).
        let abandonable: Bool
        /// Where the object's calls run (`DBusExportedObject.executor`).
        let executor: (any TaskExecutor)?
    }

    /// What a handler answers: values for libdbus to marshal, or a body written in the wire format.
    enum Answer: Sendable {
        case values([DBusValue])
        case body(DBusWireBody)
    }

    /// Routes `message` (a method call). `mayAnswerNow(path)` says whether
    /// the sender has no calls waiting at that object, so a property read
    /// may be answered from a snapshot ahead of the queue.
    static func route(_ message: DBusMessage, objects: [DBusObjectPath: DBusExportedObject],
                      mayAnswerNow: (DBusObjectPath) -> Bool) -> Route {
        let member = message.member ?? ""
        guard let pathText = message.path, let path = DBusObjectPath(pathText) else {
            return .answer(.failure(.init(name: DBusError.Name.unknownObject, message: "No object path")))
        }
        switch message.interface {
        case "org.freedesktop.DBus.Peer":
            return .answer(peer(member: member, signature: message.signature))
        case "org.freedesktop.DBus.Introspectable":
            return .answer(introspect(path: path, member: member, signature: message.signature, objects: objects))
        case nil where member == "Ping":
            return .answer(peer(member: member, signature: message.signature))
        case nil where member == "Introspect":
            return .answer(introspect(path: path, member: member, signature: message.signature, objects: objects))
        default:
            break
        }
        guard let object = objects[path] else {
            return .answer(.failure(.init(name: DBusError.Name.unknownObject, message: "No such object path '\(path)'")))
        }
        let interfaces = object.interfaces
        let isProperties = message.interface == "org.freedesktop.DBus.Properties"
        var method: DBusMethod?
        if isProperties {
            if let expected = DBusPropertiesHandler.signature(of: member), message.signature != expected {
                return .answer(.failure(.invalidArgs("\(member) takes arguments of type '\(expected)', not '\(message.signature)'")))
            }
        } else {
            switch findMethod(member: member, interface: message.interface, in: interfaces) {
            case .failure(let error):
                return .answer(.failure(error))
            case .success(let found):
                guard message.signature == found.inputSignature else {
                    return .answer(.failure(.invalidArgs(
                        "\(found.name) takes arguments of type '\(found.inputSignature)', not '\(message.signature)'")))
                }
                method = found
            }
        }
        let arguments: [DBusValue]
        do {
            arguments = try message.arguments(atMost: DBusRouter.maximumArgumentValues)
        } catch {
            return .answer(.failure(error))
        }
        if isProperties, mayAnswerNow(path),
           let read = DBusPropertiesHandler.snapshotRead(member: member, arguments: arguments, interfaces: interfaces) {
            return .answer(read())
        }
        let work: @Sendable () async throws -> Answer
        var timeout = DBusMethod.defaultTimeout
        if let method, let bodyHandler = method.bodyHandler {
            let signature = method.outputSignature
            work = {
                let body = try await bodyHandler(arguments)
                guard body.signature == signature else {
                    throw DBusError.failed("\(member) answered '\(body.signature)', not its declared '\(signature)'")
                }
                return .body(body)
            }
            timeout = method.timeout
        } else if let method {
            let handler = method.handler
            work = { .values(try await handler(arguments)) }
            timeout = method.timeout
        } else {
            switch DBusPropertiesHandler.work(member: member, signature: message.signature,
                                              arguments: arguments, interfaces: interfaces) {
            case .success(let propertyWork): work = { .values(try await propertyWork()) }
            case .failure(let error): return .answer(.failure(error))
            }
        }
        let abandonable = method?.abandonedWhenCallerLeaves ?? (member == "Get" || member == "GetAll")
        return .call(Call(path: path, member: member, work: work, timeout: timeout, abandonable: abandonable,
                          executor: object.executor))
    }

    private static func findMethod(member: String, interface: String?,
                                   in interfaces: [DBusInterface]) -> Result<DBusMethod, DBusError> {
        if let interface {
            guard let found = interfaces.first(where: { $0.name == interface }) else {
                return .failure(.init(name: DBusError.Name.unknownInterface, message: "No such interface '\(interface)'"))
            }
            guard let method = found.method(named: member) else {
                return .failure(.init(name: DBusError.Name.unknownMethod, message: "No method '\(member)' on interface '\(interface)'"))
            }
            return .success(method)
        }
        for candidate in interfaces {
            if let method = candidate.method(named: member) { return .success(method) }
        }
        return .failure(.init(name: DBusError.Name.unknownMethod, message: "No method '\(member)'"))
    }

    // MARK: - Standard interfaces

    private static func peer(member: String, signature: String) -> Result<[DBusValue], DBusError> {
        guard signature.isEmpty else { return .failure(.invalidArgs("\(member) takes no arguments")) }
        switch member {
        case "Ping":
            return .success([])
        case "GetMachineId":
            guard let raw = dbus_get_local_machine_id() else { return .failure(.failed("no machine id")) }
            defer { dbus_free(raw) }
            return .success([.string(String(cString: raw))])
        default:
            return .failure(.init(name: DBusError.Name.unknownMethod, message: "No method '\(member)' on org.freedesktop.DBus.Peer"))
        }
    }

    private static func introspect(path: DBusObjectPath, member: String, signature: String,
                                   objects: [DBusObjectPath: DBusExportedObject]) -> Result<[DBusValue], DBusError> {
        guard member == "Introspect" else {
            return .failure(.init(name: DBusError.Name.unknownMethod, message: "No method '\(member)' on org.freedesktop.DBus.Introspectable"))
        }
        guard signature.isEmpty else { return .failure(.invalidArgs("Introspect takes no arguments")) }
        let prefix = path.elements
        var children = Set<String>()
        for exported in objects.keys {
            let elements = exported.elements
            if elements.count > prefix.count, Array(elements.prefix(prefix.count)) == prefix {
                children.insert(String(elements[prefix.count]))
            }
        }
        let xml = DBusIntrospection.xml(interfaces: objects[path]?.interfaces ?? [], children: children.sorted())
        return .success([.string(xml)])
    }
}
