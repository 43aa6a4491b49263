import Foundation
internal import CDBus

/// A connection to a message bus, served by a thread of its own.
///
/// ```swift
/// let bus = try await DBusConnection.session()
/// let reply = try await bus.call(destination: "org.freedesktop.DBus", path: .init(validLiteral: "/org/freedesktop/DBus"),
///                                interface: "org.freedesktop.DBus", member: "GetId")
/// ```
public final class DBusConnection: Sendable {
    private let loop: DBusEventLoop
    /// The connection's unique name on the bus, such as `:1.42`.
    public let uniqueName: String
    /// Whether messages on this connection may carry file descriptors
    /// (`h`): true on a Unix socket whose bus allows them, as dbus-daemon does.
    public let canPassFileDescriptors: Bool

    private init(loop: DBusEventLoop, uniqueName: String, canPassFileDescriptors: Bool) {
        self.loop = loop
        self.uniqueName = uniqueName
        self.canPassFileDescriptors = canPassFileDescriptors
    }

    deinit { loop.shutdown() }

    // MARK: - Connecting

    /// Connects to the session bus named by `DBUS_SESSION_BUS_ADDRESS`.
    public static func session() async throws(DBusError) -> DBusConnection {
        let (loop, name, passesFDs) = try await DBusEventLoop.start(address: nil)
        return DBusConnection(loop: loop, uniqueName: name, canPassFileDescriptors: passesFDs)
    }

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket).
    public static func system() async throws(DBusError) -> DBusConnection {
        let (loop, name, passesFDs) = try await DBusEventLoop.start(address: nil, system: true)
        return DBusConnection(loop: loop, uniqueName: name, canPassFileDescriptors: passesFDs)
    }

    /// Connects to the bus at `address` (such as `unix:path=/tmp/bus`) and registers on it.
    public static func connect(address: String) async throws(DBusError) -> DBusConnection {
        let (loop, name, passesFDs) = try await DBusEventLoop.start(address: address)
        return DBusConnection(loop: loop, uniqueName: name, canPassFileDescriptors: passesFDs)
    }

    /// Closes the connection; pending calls fail, signal streams finish.
    public func close() {
        loop.shutdown()
    }

    /// Runs `handler` once when the connection closes or the bus goes away.
    public func onDisconnect(_ handler: @escaping @Sendable () -> Void) {
        if !loop.enqueue({ loop in loop.router.onDisconnect(handler) }) { handler() }
    }

    // MARK: - Calling

    /// Calls a method and waits for its reply.
    ///
    /// - Throws: the `DBusError` the peer replied with;
    ///   `org.freedesktop.DBus.Error.NoReply` after `timeout`;
    ///   `Disconnected` if the connection is closed.
    public func call(
        destination: String, path: DBusObjectPath, interface: String, member: String,
        arguments: [DBusValue] = [], timeout: Duration = .seconds(25), autoStart: Bool = true
    ) async throws(DBusError) -> [DBusValue] {
        let reply = try await send(destination: destination, path: path, interface: interface, member: member,
                                   arguments: arguments, timeout: timeout, autoStart: autoStart, as: .values)
        guard case .values(let values) = reply else { return [] }
        return values
    }

    /// Calls a method and returns its reply's body as it came, for a caller
    /// that reads a large reply with a `DBusWireReader`; errors as `call`.
    public func callForBody(
        destination: String, path: DBusObjectPath, interface: String, member: String,
        arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws(DBusError) -> DBusReplyBody {
        let reply = try await send(destination: destination, path: path, interface: interface, member: member,
                                   arguments: arguments, timeout: timeout, autoStart: true, as: .body)
        guard case .body(let body) = reply else { throw .failed("no reply body") }
        return body
    }

    private func send(
        destination: String, path: DBusObjectPath, interface: String, member: String,
        arguments: [DBusValue], timeout: Duration, autoStart: Bool, as form: PendingReply.Form
    ) async throws(DBusError) -> PendingReply.Reply {
        let message = try DBusMessage.methodCall(destination: destination, path: path, interface: interface, member: member)
        try message.append(arguments)
        if !autoStart { message.setNoAutoStart() }
        let handoff = MessageHandoff(message: message)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let result: Result<PendingReply.Reply, DBusError> = await withCheckedContinuation { continuation in
            let box = PendingReply(continuation, form: form)
            let accepted = loop.enqueue { loop in
                guard let connection = loop.connection else { return box.resume(.failure(.disconnected())) }
                var pending: OpaquePointer?
                guard dbus_connection_send_with_reply(connection, handoff.message.pointer, &pending, max(milliseconds, 1)) != 0,
                      let pending
                else { return box.resume(.failure(.disconnected())) }
                let retained = Unmanaged.passRetained(box).toOpaque()
                let notifySet = dbus_pending_call_set_notify(pending, PendingReply.notify, retained, PendingReply.release)
                if notifySet == 0 {
                    Unmanaged<PendingReply>.fromOpaque(retained).release()
                    box.resume(.failure(.failed("out of memory")))
                }
                dbus_pending_call_unref(pending)
            }
            if !accepted { box.resume(.failure(.disconnected())) }
        }
        return try result.get()
    }

    /// Sends a method call that wants no reply, without waiting. Calls sent
    /// one after another from one task leave in that order.
    public func send(
        destination: String, path: DBusObjectPath, interface: String, member: String, arguments: [DBusValue] = []
    ) throws(DBusError) {
        let message = try DBusMessage.methodCall(destination: destination, path: path, interface: interface, member: member)
        try message.append(arguments)
        message.setNoReply()
        let handoff = MessageHandoff(message: message)
        guard loop.enqueue({ loop in loop.send(handoff.message) }) else { throw .disconnected() }
    }

    // MARK: - Names

    /// What `RequestName` achieved.
    public enum NameRequestResult: Sendable {
        case primaryOwner, inQueue, exists, alreadyOwner
    }

    /// Requests a well-known name. `replaceExisting` takes it from an owner
    /// that allows replacement; `allowReplacement` lets a later requester
    /// take it from us.
    public func requestName(
        _ name: String, allowReplacement: Bool = false, replaceExisting: Bool = false, queue: Bool = false
    ) async throws(DBusError) -> NameRequestResult {
        var flags: UInt32 = 0
        if allowReplacement { flags |= 0x1 }
        if replaceExisting { flags |= 0x2 }
        if !queue { flags |= 0x4 }
        let reply = try await callBus("RequestName", [.string(name), .uint32(flags)])
        switch reply.first?.int64Value {
        case 1: return .primaryOwner
        case 2: return .inQueue
        case 3: return .exists
        case 4: return .alreadyOwner
        default: throw .failed("unexpected RequestName reply")
        }
    }

    /// Whether `name` currently has an owner on the bus.
    public func nameHasOwner(_ name: String) async throws(DBusError) -> Bool {
        try await callBus("NameHasOwner", [.string(name)]).first?.boolValue ?? false
    }

    /// The unique name of the connection that owns `name` now.
    public func owner(of name: String) async throws(DBusError) -> String {
        guard let owner = try await callBus("GetNameOwner", [.string(name)]).first?.stringValue else {
            throw .failed("\(name) has no owner")
        }
        return owner
    }

    /// The names the bus starts a service for on first use (its `.service` activation files).
    public func activatableNames() async throws(DBusError) -> [String] {
        try await callBus("ListActivatableNames", []).first?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The process id of the connection that owns `name`.
    public func processID(of name: String) async throws(DBusError) -> Int32 {
        guard let pid = try await callBus("GetConnectionUnixProcessID", [.string(name)]).first?.int64Value else {
            throw .failed("no process id for \(name)")
        }
        return Int32(clamping: pid)
    }

    private func callBus(_ member: String, _ arguments: [DBusValue]) async throws(DBusError) -> [DBusValue] {
        try await call(destination: "org.freedesktop.DBus", path: DBusObjectPath(validLiteral: "/org/freedesktop/DBus"),
                       interface: "org.freedesktop.DBus", member: member, arguments: arguments)
    }

    // MARK: - Exporting

    /// Makes `object` answer calls on its path (replacing any earlier object there).
    public func export(_ object: DBusExportedObject) {
        loop.enqueue { loop in loop.router.export(object) }
    }

    /// Stops answering calls on `path`.
    public func unexport(_ path: DBusObjectPath) {
        loop.enqueue { loop in loop.router.unexport(path) }
    }

    /// Sends a signal. Signals are sent in the order this is called, and
    /// before the reply of a method handler that emits them.
    public func emitSignal(path: DBusObjectPath, interface: String, member: String, arguments: [DBusValue] = []) throws(DBusError) {
        let message = try DBusMessage.signal(path: path, interface: interface, member: member)
        try message.append(arguments)
        let handoff = MessageHandoff(message: message)
        loop.enqueue { loop in loop.send(handoff.message) }
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` for `interface`.
    public func emitPropertiesChanged(
        path: DBusObjectPath, interface: String, changed: [String: DBusValue], invalidated: [String] = []
    ) throws(DBusError) {
        try emitSignal(
            path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            arguments: [.string(interface), .variantDictionary(changed), .stringArray(invalidated)])
    }

    /// From now on, a caller that leaves the bus (its process exits or
    /// closes its connection) has its calls to this connection's objects
    /// cancelled: the one running sees task cancellation, the waiting ones
    /// never start.
    public func cancelCallsWhenCallersLeave() async throws(DBusError) {
        let owners = try await signals(matching: DBusSignalMatch(
            sender: "org.freedesktop.DBus", path: DBusObjectPath(validLiteral: "/org/freedesktop/DBus"),
            interface: "org.freedesktop.DBus", member: "NameOwnerChanged"))
        Task { [loop] in
            for await change in owners {
                // (name, old owner, new owner): a unique name without a new owner has left.
                guard change.arguments.count == 3, let name = change.arguments[0].stringValue, name.hasPrefix(":"),
                      change.arguments[2].stringValue == "" else { continue }
                loop.enqueue { loop in loop.router.callerLeft(name) }
            }
        }
    }

    // MARK: - Receiving signals

    /// Subscribes to signals (adding the match rule on the bus). The stream
    /// ends when the connection closes or the consumer stops iterating.
    public func signals(matching match: DBusSignalMatch) async throws(DBusError) -> AsyncStream<DBusSignal> {
        let (stream, continuation) = AsyncStream<DBusSignal>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let registration = SubscriptionRegistration()
        loop.enqueue { loop in registration.id = loop.router.subscribe(match, continuation) }
        continuation.onTermination = { [loop] _ in
            loop.enqueue { loop in
                if let id = registration.id { loop.router.unsubscribe(id) }
            }
        }
        _ = try await callBus("AddMatch", [.string(match.rule)])
        return stream
    }
}

/// The id of a subscription, set on the loop thread and read there only.
///
/// @unchecked Sendable, proven: `id` is written and read only inside work
/// run by the one loop thread, in queue order.
private final class SubscriptionRegistration: @unchecked Sendable {
    var id: UInt64?
}

/// Waits for a pending call's reply; resumed exactly once.
private final class PendingReply: @unchecked Sendable {
    // @unchecked Sendable, proven: `continuation` is consumed under `lock`,
    // so the one resume happens once, whichever thread gets there first;
    // `form` never changes.

    /// What the caller wants of the reply.
    enum Form { case values, body }
    enum Reply: Sendable {
        case values([DBusValue])
        case body(DBusReplyBody)
    }

    private var continuation: CheckedContinuation<Result<Reply, DBusError>, Never>?
    private let lock = NSLock()
    let form: Form

    init(_ continuation: CheckedContinuation<Result<Reply, DBusError>, Never>, form: Form) {
        self.continuation = continuation
        self.form = form
    }

    /// libdbus frees a pending call's data without notifying when the
    /// connection closes first: its caller hears that, not nothing.
    deinit { continuation?.resume(returning: .failure(.disconnected())) }

    func resume(_ result: Result<Reply, DBusError>) {
        lock.lock()
        let taken = continuation
        continuation = nil
        lock.unlock()
        taken?.resume(returning: result)
    }

    static let notify: DBusPendingCallNotifyFunction = { pending, data in
        guard let pending, let data else { return }
        let box = Unmanaged<PendingReply>.fromOpaque(data).takeUnretainedValue()
        guard let raw = dbus_pending_call_steal_reply(pending) else {
            return box.resume(.failure(.init(name: DBusError.Name.noReply, message: "No reply")))
        }
        let reply = DBusMessage(adopting: raw)
        if reply.type == DBUS_MESSAGE_TYPE_ERROR {
            let message = (try? reply.arguments())?.first?.stringValue ?? ""
            box.resume(.failure(.init(name: reply.errorName ?? DBusError.Name.failed, message: message)))
        } else if box.form == .body {
            box.resume(Result { () throws(DBusError) in .body(try reply.body()) })
        } else {
            box.resume(Result { () throws(DBusError) in .values(try reply.arguments()) })
        }
    }

    static let release: DBusFreeFunction = { data in
        guard let data else { return }
        Unmanaged<PendingReply>.fromOpaque(data).release()
    }
}
