import Logging
import PodsDBus
import PodsSession
import Synchronization

/// Pauses and keeps the listener's place before the machine sleeps.
///
/// It holds a logind *delay* lock for sleep (`org.freedesktop.login1.Manager.Inhibit`
/// on the system bus, a file descriptor that is the lock): at
/// `PrepareForSleep(true)` it pauses, waits for the place to be saved and
/// closes the descriptor, which lets the sleep go on (logind waits for
/// delay locks at most `InhibitDelayMaxSec`, 5 s by default); at
/// `PrepareForSleep(false)`, awake again, it stays paused and takes a new
/// lock. A delay lock never stops a sleep, unlike a `block` lock, which
/// Pods never takes. Without logind (no system bus, a container) nothing
/// happens, and podsd says so once.
package final class SleepGuard: SessionService {
    private static let login1 = "org.freedesktop.login1"
    private static let manager = "org.freedesktop.login1.Manager"
    private static let path = DBusObjectPath(validLiteral: "/org/freedesktop/login1")

    private let pauseAndSave: @Sendable () async -> Void
    private let logger: Logger
    private let system = Mutex<(connection: DBusConnection?, finished: Bool)>((nil, false))
    /// The delay lock, while held: closing it releases it.
    private let lock = Mutex<DBusFileDescriptor?>(nil)

    /// `pauseAndSave` pauses and returns once the place is in the library.
    package init(logger: Logger, pauseAndSave: @escaping @Sendable () async -> Void) {
        self.logger = logger
        self.pauseAndSave = pauseAndSave
    }

    /// Whether a delay lock is held now.
    package var isHolding: Bool { lock.withLock { $0 != nil } }

    /// Follows logind until `finish()`.
    package func run() async {
        let connection: DBusConnection
        do throws(DBusError) { connection = try await DBusConnection.system() } catch {
            logger.info("no system bus (\(error.message)): Pods cannot pause before the machine sleeps")
            return
        }
        let finished = system.withLock { system in
            system.connection = connection
            return system.finished
        }
        defer { connection.close() }
        guard !finished, let sleeps = try? await connection.signals(matching: DBusSignalMatch(
            sender: Self.login1, path: Self.path, interface: Self.manager, member: "PrepareForSleep")) else { return }
        await takeLock(connection)
        for await signal in sleeps {
            if signal.arguments.first?.boolValue == true {
                // Paused even without a lock (logind refused one): the place is kept if there is time.
                logger.info("the machine is going to sleep: pausing and keeping the place")
                await pauseAndSave()
                lock.withLock { $0 = nil }  // closing the descriptor lets the sleep go on
            } else {
                await takeLock(connection)
            }
        }
    }

    /// Ends `run()` and lets the lock go.
    package func finish() {
        let connection = system.withLock { system in
            system.finished = true
            return system.connection
        }
        connection?.close()
        lock.withLock { $0 = nil }
    }

    private func takeLock(_ connection: DBusConnection) async {
        do throws(DBusError) {
            let reply = try await connection.call(
                destination: Self.login1, path: Self.path, interface: Self.manager, member: "Inhibit",
                arguments: [.string("sleep"), .string("Pods"), .string("Pausing and keeping your place in the episode"), .string("delay")],
                timeout: .seconds(10))
            guard case .unixFD(let descriptor)? = reply.first else { throw DBusError.failed("logind answered no lock") }
            lock.withLock { $0 = descriptor }
        } catch {
            logger.info("logind gave no sleep lock (\(error.message)): Pods cannot pause before the machine sleeps")
        }
    }
}
