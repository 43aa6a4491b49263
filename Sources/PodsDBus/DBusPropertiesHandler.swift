/// Answers `org.freedesktop.DBus.Properties` from interface descriptions.
enum DBusPropertiesHandler {
    typealias Work = @Sendable () async throws -> [DBusValue]

    /// The argument signature `member` takes; nil for a member it does not have.
    static func signature(of member: String) -> String? {
        switch member {
        case "Get": "ss"
        case "GetAll": "s"
        case "Set": "ssv"
        default: nil
        }
    }

    /// A `Get` or `GetAll` of an interface that has a snapshot, as a read
    /// of that snapshot (made whenever it runs); nil for any other call.
    static func snapshotRead(member: String, arguments: [DBusValue],
                             interfaces: [DBusInterface]) -> (@Sendable () -> Result<[DBusValue], DBusError>)? {
        guard member == "Get" || member == "GetAll", let interfaceName = arguments.first?.stringValue,
              let interface = interfaces.first(where: { $0.name == interfaceName }), let snapshot = interface.snapshot
        else { return nil }
        guard member == "Get" else { return { .success([.variantDictionary(snapshot())]) } }
        let propertyName = arguments.count > 1 ? arguments[1].stringValue ?? "" : ""
        if case .failure(let error) = property(interfaceName, propertyName, in: interfaces) { return { .failure(error) } }
        let read = interface.snapshotValue ?? { snapshot()[$0] }
        return {
            guard let value = read(propertyName) else { return .failure(unknownProperty(propertyName, interfaceName)) }
            return .success([.variant(value)])
        }
    }

    /// Checks the call on the loop thread; what is left to do (running
    /// getters and setters) comes back as work for a task.
    static func work(member: String, signature: String, arguments: [DBusValue],
                     interfaces: [DBusInterface]) -> Result<Work, DBusError> {
        // One snapshot answers a whole GetAll, after the sender's earlier calls.
        if let read = snapshotRead(member: member, arguments: arguments, interfaces: interfaces) {
            return .success({ try read().get() })
        }
        switch member {
        case "Get":
            guard signature == "ss", let interfaceName = arguments[0].stringValue,
                  let propertyName = arguments[1].stringValue
            else { return .failure(.invalidArgs("Get takes arguments of type 'ss', not '\(signature)'")) }
            return property(interfaceName, propertyName, in: interfaces).map { property in
                let getter = property.getter
                return { [.variant(await getter())] }
            }
        case "GetAll":
            guard signature == "s", let interfaceName = arguments[0].stringValue
            else { return .failure(.invalidArgs("GetAll takes arguments of type 's', not '\(signature)'")) }
            guard let interface = interfaces.first(where: { $0.name == interfaceName }) else {
                return .failure(unknownInterface(interfaceName))
            }
            let properties = interface.properties
            return .success({
                var values: [String: DBusValue] = [:]
                for property in properties { values[property.name] = await property.getter() }
                return [.variantDictionary(values)]
            })
        case "Set":
            guard signature == "ssv", let interfaceName = arguments[0].stringValue,
                  let propertyName = arguments[1].stringValue, case .variant(let value) = arguments[2]
            else { return .failure(.invalidArgs("Set takes arguments of type 'ssv', not '\(signature)'")) }
            return property(interfaceName, propertyName, in: interfaces).flatMap { property in
                guard let setter = property.setter else {
                    return .failure(.init(name: DBusError.Name.propertyReadOnly,
                                          message: "Property '\(propertyName)' is read-only"))
                }
                guard value.type == property.type else {
                    return .failure(.invalidArgs(
                        "Property '\(propertyName)' has type '\(property.type.signature)', not '\(value.type.signature)'"))
                }
                return .success({
                    try await setter(value)
                    return []
                })
            }
        default:
            return .failure(.init(name: DBusError.Name.unknownMethod,
                                  message: "No method '\(member)' on org.freedesktop.DBus.Properties"))
        }
    }

    private static func property(_ interfaceName: String, _ propertyName: String,
                                 in interfaces: [DBusInterface]) -> Result<DBusProperty, DBusError> {
        guard let interface = interfaces.first(where: { $0.name == interfaceName }) else {
            return .failure(unknownInterface(interfaceName))
        }
        guard let property = interface.property(named: propertyName) else {
            return .failure(unknownProperty(propertyName, interfaceName))
        }
        return .success(property)
    }

    private static func unknownProperty(_ name: String, _ interfaceName: String) -> DBusError {
        .init(name: DBusError.Name.unknownProperty, message: "No property '\(name)' on interface '\(interfaceName)'")
    }

    private static func unknownInterface(_ name: String) -> DBusError {
        .init(name: DBusError.Name.unknownInterface, message: "No such interface '\(name)'")
    }
}
