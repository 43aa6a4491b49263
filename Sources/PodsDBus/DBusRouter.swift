import Foundation
internal import CDBus

/// Answers incoming method calls and delivers incoming signals.
///
/// Lives on the connection's loop thread: every member is touched only
/// there (see `DBusEventLoop`).
final class DBusRouter {
    private struct Subscription {
        let match: DBusSignalMatch
        let continuation: AsyncStream<DBusSignal>.Continuation
    }

    private var objects: [DBusObjectPath: DBusExportedObject] = [:]
    private var subscriptions: [UInt64: Subscription] = [:]
    private var nextSubscriptionID: UInt64 = 0
    private var disconnectHandlers: [@Sendable () -> Void] = []
    private var isDisconnected = false
    /// Calls whose handler is still running, so that their messages are
    /// referenced (and finally released) on this thread only.
    private var callsInFlight: [UInt64: (message: DBusMessage, queue: CallQueue.Key)] = [:]
    private var nextCallID: UInt64 = 0
    /// One queue per sender and object while that sender has calls there.
    private var callQueues: [CallQueue.Key: CallQueue] = [:]

    /// The most values one call's arguments may hold (each is built as a
    /// `DBusValue`): a 50 MB `ay` inside a variant is refused after this
    /// many bytes rather than built as fifty million values.
    static let maximumArgumentValues = 65_536

    /// The most calls one sender may have waiting at one object: calls sent
    /// without asking for a reply are not counted by the bus daemon's
    /// limits, so without this a client could queue calls without end
    /// behind one slow call. Past it, `LimitsExceeded`.
    static let maximumQueuedCalls = 1024

    // MARK: - Registration

    func export(_ object: DBusExportedObject) {
        objects[object.path] = object
    }

    func unexport(_ path: DBusObjectPath) {
        objects[path] = nil
    }

    func subscribe(_ match: DBusSignalMatch, _ continuation: AsyncStream<DBusSignal>.Continuation) -> UInt64 {
        nextSubscriptionID += 1
        if isDisconnected {
            continuation.finish()
        } else {
            subscriptions[nextSubscriptionID] = Subscription(match: match, continuation: continuation)
        }
        return nextSubscriptionID
    }

    func unsubscribe(_ id: UInt64) {
        subscriptions.removeValue(forKey: id)?.continuation.finish()
    }

    func onDisconnect(_ handler: @escaping @Sendable () -> Void) {
        if isDisconnected { handler() } else { disconnectHandlers.append(handler) }
    }

    func connectionClosed() {
        guard !isDisconnected else { return }
        isDisconnected = true
        callsInFlight.removeAll()
        for queue in callQueues.values { queue.cancel() }
        callQueues.removeAll()
        for subscription in subscriptions.values { subscription.continuation.finish() }
        subscriptions.removeAll()
        let handlers = disconnectHandlers
        disconnectHandlers.removeAll()
        for handler in handlers { handler() }
    }

    // MARK: - Incoming messages

    /// Returns whether the message was handled (method calls always are).
    func handle(_ message: DBusMessage, on loop: DBusEventLoop) -> Bool {
        switch message.type {
        case DBUS_MESSAGE_TYPE_METHOD_CALL:
            handleCall(message, on: loop)
            return true
        case DBUS_MESSAGE_TYPE_SIGNAL:
            deliverSignal(message, on: loop)
            return false
        default:
            return false
        }
    }

    private func deliverSignal(_ message: DBusMessage, on loop: DBusEventLoop) {
        let interface = message.interface ?? ""
        let member = message.member ?? ""
        if interface == "org.freedesktop.DBus.Local" && member == "Disconnected" {
            connectionClosed()
            loop.shutdown()
            return
        }
        guard !subscriptions.isEmpty, let arguments = try? message.arguments() else { return }
        let signal = DBusSignal(
            sender: message.sender ?? "", path: message.path ?? "", interface: interface,
            member: member, arguments: arguments, receivedAt: .now)
        for subscription in subscriptions.values where subscription.match.matches(signal) {
            subscription.continuation.yield(signal)
        }
    }

    private func handleCall(_ message: DBusMessage, on loop: DBusEventLoop) {
        let arrived = ContinuousClock.now  // a caller's wait starts when it sends, not when its call's turn comes
        let member = message.member ?? ""
        guard let pathText = message.path, let path = DBusObjectPath(pathText) else {
            return reply(to: message, .failure(.init(name: DBusError.Name.unknownObject, message: "No object path")), on: loop)
        }
        switch message.interface {
        case "org.freedesktop.DBus.Peer":
            return reply(to: message, peer(member: member, signature: message.signature), on: loop)
        case "org.freedesktop.DBus.Introspectable":
            return reply(to: message, introspect(path: path, member: member, signature: message.signature), on: loop)
        default:
            break
        }
        if message.interface == nil, member == "Introspect" || member == "Ping" {
            let result = member == "Ping"
                ? peer(member: member, signature: message.signature)
                : introspect(path: path, member: member, signature: message.signature)
            return reply(to: message, result, on: loop)
        }
        guard let object = objects[path] else {
            return reply(to: message, .failure(.init(
                name: DBusError.Name.unknownObject, message: "No such object path '\(path)'")), on: loop)
        }
        let interfaces = object.interfaces
        // The signature is checked before any argument is read, and reading
        // stops at `maximumArgumentValues`: a call podsd cannot take costs
        // nothing, and one it can take costs a bounded amount.
        let isProperties = message.interface == "org.freedesktop.DBus.Properties"
        var method: DBusMethod?
        if isProperties {
            if let expected = DBusPropertiesHandler.signature(of: member), message.signature != expected {
                return reply(to: message, .failure(.invalidArgs(
                    "\(member) takes arguments of type '\(expected)', not '\(message.signature)'")), on: loop)
            }
        } else {
            switch findMethod(member: member, interface: message.interface, in: interfaces) {
            case .failure(let error):
                return reply(to: message, .failure(error), on: loop)
            case .success(let found):
                guard message.signature == found.inputSignature else {
                    return reply(to: message, .failure(.invalidArgs(
                        "\(found.name) takes arguments of type '\(found.inputSignature)', not '\(message.signature)'")), on: loop)
                }
                method = found
            }
        }
        let arguments: [DBusValue]
        do {
            arguments = try message.arguments(atMost: Self.maximumArgumentValues)
        } catch {
            return reply(to: message, .failure(error), on: loop)
        }
        let key = CallQueue.Key(path: path, sender: message.sender ?? "")
        if isProperties, callQueues[key] == nil,
           let read = DBusPropertiesHandler.snapshotRead(member: member, arguments: arguments, interfaces: interfaces) {
            return reply(to: message, read(), on: loop)
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
            case .failure(let error): return reply(to: message, .failure(error), on: loop)
            }
        }
        let abandonable = method?.abandonedWhenCallerLeaves ?? (member == "Get" || member == "GetAll")
        nextCallID += 1
        let callID = nextCallID
        let executor = object.executor
        if let waiting = callQueues[key], waiting.pending >= Self.maximumQueuedCalls {
            return reply(to: message, .failure(.init(name: DBusError.Name.limitsExceeded,
                message: "\(Self.maximumQueuedCalls) calls of this sender are waiting here already")), on: loop)
        }
        let queue = callQueues[key] ?? CallQueue(executor: executor)
        callQueues[key] = queue
        queue.pending += 1
        callsInFlight[callID] = (message, key)
        // The reply is made here but filled by the job: marshalling a large
        // reply (a page of library items) never holds up this thread, which
        // every other call and signal waits on.
        let emptyReply = message.expectsReply ? message.methodReturn().map(MessageHandoff.init) : nil
        let (serial, sender) = (message.serial, message.sender)
        let finish: @Sendable (Result<MessageHandoff?, DBusError>) -> Void = { result in
            loop.enqueue { loop in loop.router.finishCall(callID, result, on: loop) }
        }
        let call = Call(work: work, member: member, arrived: arrived, timeout: timeout, abandonable: abandonable,
                        emptyReply: emptyReply, serial: serial, sender: sender)
        queue.enqueue { [queue] callerLeft in await call.perform(in: queue, on: executor, callerLeft: callerLeft, finish: finish) }
    }

    /// A call taken in, waiting for its turn in its sender's queue.
    private struct Call: Sendable {
        let work: @Sendable () async throws -> Answer
        let member: String
        let arrived: ContinuousClock.Instant
        let timeout: Duration
        let abandonable: Bool
        let emptyReply: MessageHandoff?
        let serial: UInt32
        let sender: String?

        /// Its turn: it runs on a task of its own, and the queue waits for it
        /// to end or to let the sender's later calls start (`DBusCall.letLaterCallsStart`).
        func perform(in queue: CallQueue, on executor: (any TaskExecutor)?, callerLeft: Bool,
                     finish: @escaping @Sendable (Result<MessageHandoff?, DBusError>) -> Void) async {
            if callerLeft && abandonable { return finish(.failure(.failed("the caller left the bus"))) }
            let remaining = timeout - (ContinuousClock.now - arrived)
            guard remaining > .zero else { return finish(.failure(DBusRouter.timedOut(member, timeout))) }
            let gate = CallGate()
            let running = Task(executorPreference: executor) {
                let result = await answer(within: remaining, gate: gate)
                finish(result)
                gate.open()
            }
            if abandonable { queue.whileRunning(abandon: { running.cancel() }) }
            await withTaskCancellationHandler { await gate.wait() } onCancel: { running.cancel() }
            queue.whileRunning(abandon: nil)
        }

        /// The reply: `work`'s answer in `emptyReply` (or a return written from its body), or the error it threw.
        private func answer(within remaining: Duration, gate: CallGate) async -> Result<MessageHandoff?, DBusError> {
            do {
                switch try await DBusRouter.run(work, within: remaining, timeout: timeout, member: member, gate: gate) {
                case .values(let values):
                    try emptyReply?.message.append(values)
                    return .success(emptyReply)
                case .body(let body):
                    guard emptyReply != nil else { return .success(nil) }
                    return .success(MessageHandoff(message: try DBusMessage.methodReturn(toSerial: serial, sender: sender, body: body)))
                }
            } catch let error as DBusError {
                return .failure(error)
            } catch let error as any DBusErrorConvertible {
                return .failure(error.dbusError)
            } catch {
                return .failure(.failed(String(describing: error)))
            }
        }
    }

    /// Runs a handler's `work`, cancelled once `remaining` (of the caller's
    /// `timeout`, counted from when the call arrived) passes: its caller has
    /// stopped waiting. A handler that ignores cancellation still runs to its
    /// end, but its answer is the timeout.
    fileprivate static func run(_ work: @escaping @Sendable () async throws -> Answer, within remaining: Duration,
                                timeout: Duration, member: String, gate: CallGate) async throws -> Answer {
        try await withThrowingTaskGroup(of: Answer?.self) { group in
            group.addTask { try await DBusCall.running(with: gate) { try await work() } }
            let deadline = ContinuousClock.now + remaining
            group.addTask {
                await CallDeadlines.shared.wait(until: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let values = first else { throw timedOut(member, timeout) }
            return values
        }
    }

    fileprivate static func timedOut(_ member: String, _ timeout: Duration) -> DBusError {
        DBusError(name: DBusError.Name.timeout,
                  message: "\(member) did not finish within \(timeout.components.seconds) s, the time its callers wait")
    }

    /// What a handler answers: values for libdbus to marshal, or a body written in the wire format.
    fileprivate enum Answer: Sendable {
        case values([DBusValue])
        case body(DBusWireBody)
    }

    /// A sender left the bus: its reads (`abandonedWhenCallerLeaves`) stop,
    /// running or waiting; what it asked to change is still carried out.
    func callerLeft(_ sender: String) {
        for (key, queue) in callQueues where key.sender == sender { queue.callerLeft() }
    }

    private func finishCall(_ callID: UInt64, _ result: Result<MessageHandoff?, DBusError>, on loop: DBusEventLoop) {
        guard let (message, key) = callsInFlight.removeValue(forKey: callID) else { return }
        if let queue = callQueues[key] {
            queue.pending -= 1
            if queue.pending == 0 {
                queue.close()
                callQueues[key] = nil
            }
        }
        switch result {
        case .success(let filled):
            if let filled { loop.send(filled.message) }
        case .failure(let error):
            reply(to: message, .failure(error), on: loop)
        }
    }

    private func findMethod(member: String, interface: String?, in interfaces: [DBusInterface]) -> Result<DBusMethod, DBusError> {
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

    private func peer(member: String, signature: String) -> Result<[DBusValue], DBusError> {
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

    private func introspect(path: DBusObjectPath, member: String, signature: String) -> Result<[DBusValue], DBusError> {
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

    // MARK: - Replying

    private func reply(to message: DBusMessage, _ result: Result<[DBusValue], DBusError>, on loop: DBusEventLoop) {
        guard message.expectsReply else { return }
        switch result {
        case .success(let values):
            guard let reply = message.methodReturn() else { return }
            do {
                try reply.append(values)
                loop.send(reply)
            } catch {
                if let errorReply = message.errorReply(error) { loop.send(errorReply) }
            }
        case .failure(let error):
            if let errorReply = message.errorReply(error) { loop.send(errorReply) }
        }
    }
}
