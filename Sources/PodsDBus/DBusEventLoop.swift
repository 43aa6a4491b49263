import Foundation
import Synchronization
internal import CDBus

/// The thread that owns one libdbus connection.
///
/// Every libdbus call on the connection happens on this thread: other
/// threads hand it work through `enqueue`, which wakes its `poll` through a
/// self-pipe. libdbus's watches and timeouts are served by the same `poll`, so
/// the thread sleeps until there is I/O, a timeout, or work: nothing wakes it
/// periodically.
final class DBusEventLoop: @unchecked Sendable {
    // @unchecked Sendable, proven: `connection`, `watches`, `timeouts`,
    // `router` and `isRunning` are read and written only on `thread` (inside
    // `run` and the libdbus callbacks it drives, which libdbus calls on the
    // thread that calls into it). Other threads touch only `inbox` (a Mutex)
    // and `wakeFD` (a pipe, whose write is thread-safe).
    typealias Work = @Sendable (DBusEventLoop) -> Void

    private struct Inbox {
        var work: [Work] = []
        var isClosed = false
    }

    private final class TimeoutEntry {
        let timeout: OpaquePointer
        var deadline: ContinuousClock.Instant
        init(timeout: OpaquePointer, deadline: ContinuousClock.Instant) {
            self.timeout = timeout
            self.deadline = deadline
        }
    }

    private let inbox = Mutex(Inbox())
    /// A self-pipe: `enqueue` writes a byte to `wakeFD.write`, `poll` watches `wakeFD.read`.
    private let wakeFD: (read: Int32, write: Int32)
    private(set) var connection: OpaquePointer?
    private var watches: [OpaquePointer] = []
    private var timeouts: [TimeoutEntry] = []
    private var isRunning = true
    let router = DBusRouter()

    private init(wakeFD: (read: Int32, write: Int32)) {
        self.wakeFD = wakeFD
    }

    deinit {
        close(wakeFD.read)
        close(wakeFD.write)
    }

    // MARK: - Starting

    /// Connects on a new thread and starts serving the connection there.
    /// `address` nil means the session bus.
    /// `address` nil: the session bus, or with `system` the system bus (each as libdbus finds it).
    static func start(address: String?, system: Bool = false) async throws(DBusError) -> (DBusEventLoop, uniqueName: String, passesFDs: Bool) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw .failed("pipe failed: errno \(errno)") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        let loop = DBusEventLoop(wakeFD: (fds[0], fds[1]))
        let result: Result<(String, Bool), DBusError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                // Named from inside, so the kernel's name is set too (what top and perf show).
                Thread.current.name = "pods.dbus"
                switch loop.open(address: address, system: system) {
                case .success(let opened):
                    continuation.resume(returning: .success(opened))
                    loop.run()
                case .failure(let error):
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.start()
        }
        let (name, passesFDs) = try result.get()
        return (loop, name, passesFDs)
    }

    /// Opens the connection: its unique name, and whether it can pass file descriptors.
    private func open(address: String?, system: Bool) -> Result<(String, Bool), DBusError> {
        dbus_threads_init_default()
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        let opened: OpaquePointer?
        if let address {
            opened = dbus_connection_open_private(address, &error)
            if let opened, dbus_bus_register(opened, &error) == 0 {
                dbus_connection_close(opened)
                dbus_connection_unref(opened)
                return .failure(Self.take(&error))
            }
        } else {
            opened = dbus_bus_get_private(system ? DBUS_BUS_SYSTEM : DBUS_BUS_SESSION, &error)
        }
        guard let opened else { return .failure(Self.take(&error)) }
        dbus_connection_set_exit_on_disconnect(opened, 0)
        connection = opened
        let me = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_watch_functions(
            opened, Self.addWatch, Self.removeWatch, Self.toggleWatch, me, nil)
        dbus_connection_set_timeout_functions(
            opened, Self.addTimeout, Self.removeTimeout, Self.toggleTimeout, me, nil)
        dbus_connection_add_filter(opened, Self.filter, me, nil)
        let unique = dbus_bus_get_unique_name(opened).map { String(cString: $0) } ?? ""
        return .success((unique, dbus_connection_can_send_type(opened, DBusMarshal.typeCode("h")) != 0))
    }

    static func take(_ error: inout CDBus.DBusError) -> DBusError {
        defer { dbus_error_free(&error) }
        guard dbus_error_is_set(&error) != 0 else { return .failed("unknown libdbus error") }
        return DBusError(
            name: error.name.map { String(cString: $0) } ?? DBusError.Name.failed,
            message: error.message.map { String(cString: $0) } ?? "")
    }

    // MARK: - Work from other threads

    /// Runs `work` on the loop thread, in order. Returns false once the loop
    /// has shut down (the work is dropped).
    @discardableResult
    func enqueue(_ work: @escaping Work) -> Bool {
        let accepted = inbox.withLock { inbox in
            guard !inbox.isClosed else { return false }
            inbox.work.append(work)
            return true
        }
        if accepted {
            var one: UInt8 = 1
            _ = write(wakeFD.write, &one, 1)  // a full pipe already means "wake up"

        }
        return accepted
    }

    /// Closes the connection and ends the thread once queued work has run.
    func shutdown() {
        enqueue { loop in loop.isRunning = false }
    }

    // MARK: - The loop

    private func run() {
        while isRunning {
            runQueuedWork()
            dispatchAll()
            guard isRunning else { break }
            waitForEvents()
        }
        inbox.withLock { $0.isClosed = true }
        runQueuedWork()
        if let connection {
            dbus_connection_close(connection)
            dispatchAll()
            dbus_connection_unref(connection)
            self.connection = nil
        }
        router.connectionClosed()
    }

    private func runQueuedWork() {
        let work = inbox.withLock { inbox in
            let taken = inbox.work
            inbox.work.removeAll(keepingCapacity: true)
            return taken
        }
        for item in work { item(self) }
    }

    private func dispatchAll() {
        guard let connection else { return }
        while dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
    }

    private func waitForEvents() {
        let active = watches.filter { dbus_watch_get_enabled($0) != 0 }
        var fds = [pollfd(fd: wakeFD.read, events: Int16(POLLIN), revents: 0)]
        for watch in active {
            let flags = dbus_watch_get_flags(watch)
            var events: Int16 = 0
            if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
            if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
            fds.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
        }
        let ready = poll(&fds, nfds_t(fds.count), pollTimeoutMilliseconds())
        guard ready >= 0 else { return }  // EINTR: go round again
        if fds[0].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 512)
            while read(wakeFD.read, &drain, drain.count) > 0 {}
        }
        for (index, watch) in active.enumerated() {
            let revents = fds[index + 1].revents
            guard revents != 0, watches.contains(watch) else { continue }
            var flags: UInt32 = 0
            if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
            if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if revents & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
            if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
            dbus_watch_handle(watch, flags)
        }
        fireExpiredTimeouts()
    }

    private func pollTimeoutMilliseconds() -> Int32 {
        let enabled = timeouts.filter { dbus_timeout_get_enabled($0.timeout) != 0 }
        guard let next = enabled.map(\.deadline).min() else { return -1 }
        let remaining = ContinuousClock.now.duration(to: next)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    private func fireExpiredTimeouts() {
        let now = ContinuousClock.now
        for entry in timeouts where entry.deadline <= now {
            // An earlier handler in this pass may have removed (and freed) it.
            guard timeouts.contains(where: { $0 === entry }), dbus_timeout_get_enabled(entry.timeout) != 0 else { continue }
            entry.deadline = now + .milliseconds(Int(dbus_timeout_get_interval(entry.timeout)))
            dbus_timeout_handle(entry.timeout)
        }
    }

    // MARK: - Sending (loop thread only)

    func send(_ message: DBusMessage) {
        guard let connection else { return }
        dbus_connection_send(connection, message.pointer, nil)
    }

    // MARK: - libdbus callbacks (called on the loop thread)

    private static func loop(_ data: UnsafeMutableRawPointer?) -> DBusEventLoop? {
        data.map { Unmanaged<DBusEventLoop>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let addWatch: DBusAddWatchFunction = { watch, data in
        guard let watch, let loop = loop(data) else { return 0 }
        loop.watches.append(watch)
        return 1
    }

    private static let removeWatch: DBusRemoveWatchFunction = { watch, data in
        guard let watch, let loop = loop(data) else { return }
        loop.watches.removeAll { $0 == watch }
    }

    private static let toggleWatch: DBusWatchToggledFunction = { _, _ in
        // Enabled state is read afresh before every poll.
    }

    private static let addTimeout: DBusAddTimeoutFunction = { timeout, data in
        guard let timeout, let loop = loop(data) else { return 0 }
        let interval = Int(dbus_timeout_get_interval(timeout))
        loop.timeouts.append(TimeoutEntry(timeout: timeout, deadline: .now + .milliseconds(interval)))
        return 1
    }

    private static let removeTimeout: DBusRemoveTimeoutFunction = { timeout, data in
        guard let timeout, let loop = loop(data) else { return }
        loop.timeouts.removeAll { $0.timeout == timeout }
    }

    private static let toggleTimeout: DBusTimeoutToggledFunction = { timeout, data in
        guard let timeout, let loop = loop(data) else { return }
        let interval = Int(dbus_timeout_get_interval(timeout))
        for entry in loop.timeouts where entry.timeout == timeout {
            entry.deadline = .now + .milliseconds(interval)
        }
    }

    private static let filter: DBusHandleMessageFunction = { _, message, data in
        guard let message, let loop = loop(data) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let handled = loop.router.handle(DBusMessage(retaining: message), on: loop)
        return handled ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }
}
