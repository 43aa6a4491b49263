/// A named, typed argument of a method or signal.
public struct DBusArgument: Sendable {
    public var name: String
    public var type: DBusType
    /// Introspection annotations on the argument (name → value), such as
    /// the keys an `a{sv}` carries.
    public var annotations: [String: String]

    public init(_ name: String, _ type: DBusType, annotations: [String: String] = [:]) {
        self.name = name
        self.type = type
        self.annotations = annotations
    }
}

/// A method of an exported interface and the code that answers it.
public struct DBusMethod: Sendable {
    /// Receives arguments already checked against `inputs`; returns values
    /// matching `outputs`. A thrown `DBusError` becomes that error reply; any
    /// other error becomes `org.freedesktop.DBus.Error.Failed`.
    public typealias Handler = @Sendable ([DBusValue]) async throws -> [DBusValue]

    public var name: String
    public var inputs: [DBusArgument]
    public var outputs: [DBusArgument]
    /// How long a caller waits for the answer. A D-Bus call does not carry
    /// its caller's timeout, so a method states it: past it the handler is
    /// cancelled (it no longer holds up its sender's next calls) and the
    /// answer is `org.freedesktop.DBus.Error.Timeout`.
    public var timeout: Duration
    public var handler: Handler
    /// Answers with a body written in the wire format instead (a large
    /// page); its signature must be the outputs'.
    public var bodyHandler: BodyHandler?
    /// Whether the call is dropped when its caller leaves the bus (a read:
    /// nobody is left to read the answer). A call that changes something is
    /// carried out all the same, so a fire-and-forget call (a media key sent
    /// by a helper that exits at once) is never lost; only its reply is.
    public var abandonedWhenCallerLeaves = false

    public typealias BodyHandler = @Sendable ([DBusValue]) async throws -> DBusWireBody

    /// The reply timeout libdbus, GDBus and sd-bus use when the caller sets none.
    public static let defaultTimeout = Duration.seconds(25)

    public init(_ name: String, inputs: [DBusArgument] = [], outputs: [DBusArgument] = [],
                timeout: Duration = DBusMethod.defaultTimeout, handler: @escaping Handler) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.timeout = timeout
        self.handler = handler
    }

    /// A method that answers with a body it writes itself (`DBusWireWriter`).
    public static func answeringWithBody(_ name: String, inputs: [DBusArgument] = [], outputs: [DBusArgument] = [],
                                         timeout: Duration = DBusMethod.defaultTimeout,
                                         _ bodyHandler: @escaping BodyHandler) -> DBusMethod {
        var method = DBusMethod(name, inputs: inputs, outputs: outputs, timeout: timeout) { _ in [] }
        method.bodyHandler = bodyHandler
        return method
    }

    var outputSignature: String { outputs.map(\.type).signature }

    var inputSignature: String { inputs.map(\.type).signature }
}

/// A property of an exported interface.
public struct DBusProperty: Sendable {
    /// How the property announces changes (`org.freedesktop.DBus.Property.EmitsChangedSignal`).
    public enum ChangeSignal: String, Sendable {
        case emitsValue = "true"
        case invalidates
        case constant = "const"
        case none = "false"
    }

    public typealias Getter = @Sendable () async -> DBusValue
    /// Receives a value already checked against `type`.
    public typealias Setter = @Sendable (DBusValue) async throws -> Void

    public var name: String
    public var type: DBusType
    public var changeSignal: ChangeSignal
    public var getter: Getter
    public var setter: Setter?

    public init(_ name: String, _ type: DBusType, changeSignal: ChangeSignal = .emitsValue,
                get: @escaping Getter, set: Setter? = nil) {
        self.name = name
        self.type = type
        self.changeSignal = changeSignal
        self.getter = get
        self.setter = set
    }

    var access: String { setter == nil ? "read" : "readwrite" }
}

/// A signal an interface may emit.
public struct DBusSignalDescription: Sendable {
    public var name: String
    public var arguments: [DBusArgument]

    public init(_ name: String, arguments: [DBusArgument] = []) {
        self.name = name
        self.arguments = arguments
    }
}

/// One interface of an exported object: its description is also what
/// answers calls, `GetAll` and `Introspect`, so they cannot disagree.
public struct DBusInterface: Sendable {
    public var name: String
    public var methods: [DBusMethod]
    public var properties: [DBusProperty]
    public var signals: [DBusSignalDescription]
    /// Every property's value at once, cheaply and without blocking (a
    /// lock, no await): when set, `Get` and `GetAll` are answered from one
    /// snapshot on the connection's thread, as fast as `Peer.Ping`, unless
    /// calls of the same sender to the object are still waiting (they go
    /// first). Setters still run as calls.
    public var snapshot: (@Sendable () -> [String: DBusValue])?
    /// One property's value as `snapshot` would give it, without making
    /// the others (a `Get` of `Position` need not copy `Metadata`); when
    /// nil, `Get` reads the whole snapshot.
    public var snapshotValue: (@Sendable (String) -> DBusValue?)?

    public init(name: String, methods: [DBusMethod] = [], properties: [DBusProperty] = [],
                signals: [DBusSignalDescription] = [], snapshot: (@Sendable () -> [String: DBusValue])? = nil,
                snapshotValue: (@Sendable (String) -> DBusValue?)? = nil) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
        self.snapshot = snapshot
        self.snapshotValue = snapshotValue
    }

    func method(named name: String) -> DBusMethod? { methods.first { $0.name == name } }
    func property(named name: String) -> DBusProperty? { properties.first { $0.name == name } }
}

/// An object to export: a path and the interfaces it implements.
/// `org.freedesktop.DBus.Properties`, `.Introspectable` and `.Peer` are added
/// by the connection.
public struct DBusExportedObject: Sendable {
    public var path: DBusObjectPath
    public var interfaces: [DBusInterface]
    /// Where the object's method calls and property accesses run (and the
    /// actors they call, unless those have executors of their own); nil for
    /// Swift's default pool. An object that must answer fast whatever else
    /// the process does gets threads of its own.
    public var executor: (any TaskExecutor)?

    public init(path: DBusObjectPath, interfaces: [DBusInterface], executor: (any TaskExecutor)? = nil) {
        self.path = path
        self.interfaces = interfaces
        self.executor = executor
    }
}
