import PodsClient
import PodsDBus
import Synchronization

/// Turns controller changes into MPRIS signals: one `PropertiesChanged` per
/// interface carrying exactly the values that changed, and `Seeked`.
///
/// Called synchronously from the controller, so signals leave in the same
/// turn as the change, ahead of the method reply that caused it.
final class MPRISPublisher: Sendable {
    private let connection: DBusConnection
    private let lastSent: Mutex<[String: DBusValue]>

    init(connection: DBusConnection, initial: PlayerState) {
        self.connection = connection
        self.lastSent = Mutex(MPRISProperties.player(initial))
    }

    func publish(_ change: PlayerController.Change) {
        switch change {
        case .state(let state):
            let current = MPRISProperties.player(state)
            let changed = lastSent.withLock { last in
                let diff = current.filter { last[$0.key] != $0.value }
                last = current
                return diff
            }
            guard !changed.isEmpty else { return }
            try? connection.emitPropertiesChanged(
                path: MPRIS.objectPath, interface: MPRIS.playerInterface, changed: changed)
        case .seeked(let position):
            try? connection.emitSignal(
                path: MPRIS.objectPath, interface: MPRIS.playerInterface, member: "Seeked",
                arguments: [.int64(position.microsecondsSaturating)])
        case .progress, .ended:
            break  // the library's business
        }
    }
}
