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
        // Any client may send a signal that matches a subscription: its arguments are read with a call's bound.
        guard !subscriptions.isEmpty, let arguments = try? message.arguments(atMost: Self.maximumArgumentValues) else { return }
        let signal = DBusSignal(
            sender: message.sender ?? "", path: message.path ?? "", interface: interface,
            member: member, arguments: arguments, receivedAt: .now, destination: message.destination)
        for subscription in subscriptions.values where subscription.match.matches(signal) {
            subscription.continuation.yield(signal)
        }
    }

    private func handleCall(_ message: DBusMessage, on loop: DBusEventLoop) {
        let arrived = ContinuousClock.now  // a caller's wait starts when it sends, not when its call's turn comes
        let sender = message.sender ?? ""
        let route = DBusDispatch.route(message, objects: objects) { [callQueues] path in
            callQueues[CallQueue.Key(path: path, sender: sender)] == nil
        }
        let routed: DBusDispatch.Call
        switch route {
        case .answer(let result): return reply(to: message, result, on: loop)
        case .call(let call): routed = call
        }
        let key = CallQueue.Key(path: routed.path, sender: sender)
        let executor = routed.executor
        nextCallID += 1
        let callID = nextCallID
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
        let serial = message.serial
        let finish: @Sendable (Result<MessageHandoff?, DBusError>) -> Void = { result in
            loop.enqueue { loop in loop.router.finishCall(callID, result, on: loop) }
        }
        let call = Call(work: routed.work, member: routed.member, arrived: arrived, timeout: routed.timeout,
                        abandonable: routed.abandonable, emptyReply: emptyReply, serial: serial, sender: message.sender)
        queue.enqueue { [queue] callerLeft in await call.perform(in: queue, on: executor, callerLeft: callerLeft, finish: finish) }
    }

    /// A call taken in, waiting for its turn in its sender's queue.
    private struct Call: Sendable {
        let work: @Sendable () async throws -> DBusDispatch.Answer
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
    fileprivate static func run(_ work: @escaping @Sendable () async throws -> DBusDispatch.Answer, within remaining: Duration,
                                timeout: Duration, member: String, gate: CallGate) async throws -> DBusDispatch.Answer {
        try await withThrowingTaskGroup(of: DBusDispatch.Answer?.self) { group in
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
