import Logging
import PodsDBus
import PodsProtocol

/// MPRIS `Raise`: asks the window (`pods-gtk`) to show itself through
/// `org.freedesktop.Application.Activate`, which the bus starts it for when
/// it is not running. `CanRaise` says whether it can: the window is
/// installed (its activation file is among the bus's) or runs.
package struct WindowRaiser: Sendable {
    /// Whether the window can be raised, as the bus said when podsd started.
    package let canRaise: Bool
    private let connection: DBusConnection
    private let logger: Logger

    /// Asks the bus, once: whether the window is installed or running.
    package static func probe(connection: DBusConnection, logger: Logger) async -> WindowRaiser {
        let name = PodsWindowBus.applicationID
        let running = (try? await connection.nameHasOwner(name)) == true
        let activatable = running ? [] : ((try? await connection.activatableNames()) ?? [])
        let installed = running || activatable.contains(name)
        return WindowRaiser(canRaise: installed, connection: connection, logger: logger)
    }

    /// Sent without waiting for the window to start (a second or two): the
    /// MPRIS lane answers the media keys meanwhile. Where the window is not
    /// installed it does nothing, as the specification has it when `CanRaise` is false.
    package func raise() throws(DBusError) {
        guard canRaise else { return }
        do throws(DBusError) {
            try connection.send(destination: PodsWindowBus.applicationID, path: PodsWindowBus.objectPath,
                                interface: PodsWindowBus.applicationInterface, member: "Activate",
                                arguments: [.dictionary(key: .string, value: .variant, [])])
        } catch {
            logger.warning("could not ask the window to show itself: \(error.message)")
            throw error
        }
    }
}
