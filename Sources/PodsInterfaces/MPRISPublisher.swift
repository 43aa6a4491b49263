import PodsDBus
import PodsPlayback
import PodsPlayer
import PodsProtocol
import PodsSession
import Synchronization

/// Turns controller changes into MPRIS signals: one `PropertiesChanged` per
/// interface carrying exactly the values that changed, and `Seeked`; and
/// keeps what they said, so that `Get` and `GetAll` are answered from it on
/// the bus thread without a hop to the controller.
///
/// Called synchronously from the controller, so signals leave in the same
/// turn as the change, ahead of the method reply that caused it.
package final class MPRISPublisher: Sendable {
    private typealias Property = MPRIS.PlayerProperty
    private let connection: DBusConnection
    private let lastSent: Mutex<[String: DBusValue]>
    /// The last known position, and the pipeline's while it plays.
    private let clock = Mutex(PositionSnapshot())

    private struct PositionSnapshot {
        var position: Duration = .zero
        var moving = false
        var duration: Duration?
        var live: PositionReader?

        /// The pipeline's own position while it plays and has settled; else
        /// the one last announced (held while a seek or a load settles).
        func now() -> Duration {
            var position = (moving ? live?.position() : nil) ?? self.position
            if let duration { position = min(position, duration) }
            return max(position, .zero)
        }
    }

    /// Publishes `controller`'s changes from its state now on.
    package init(connection: DBusConnection, controller: PlayerController) async {
        self.connection = connection
        self.lastSent = Mutex(MPRISProperties.player(await controller.currentState()))
        controller.follow { [self] change in publish(change) }
    }

    /// `org.mpris.MediaPlayer2.Player`'s properties as last published, with
    /// `Position` where playback is now: one consistent snapshot.
    package func playerProperties() -> [String: DBusValue] {
        var properties = lastSent.withLock { $0 }
        for name in [Property.position.name, Property.canControl.name] { properties[name] = playerProperty(named: name) }
        return properties
    }

    /// One property of `playerProperties()`, without copying the others.
    package func playerProperty(named name: String) -> DBusValue? {
        switch name {
        // The snapshot is copied out, and the pipeline asked after: a GStreamer query never runs under the lock.
        case Property.position.name: .int64(clock.withLock { $0 }.now().microsecondsSaturating)
        case Property.canControl.name: .bool(true)
        default: lastSent.withLock { $0[name] }
        }
    }

    package func publish(_ change: PlayerController.Change) {
        switch change {
        case .state(let state, _):
            let now = clock.withLock { $0 }.now()  // (the query outside the lock; publishing is serial)
            clock.withLock { clock in
                clock.position = now
                clock.live = nil  // until the controller says where it is
                clock.moving = state.status == .playing && !state.isBuffering
                clock.duration = state.track?.duration
            }
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
                path: MPRIS.objectPath, interface: MPRIS.playerInterface, member: MPRIS.seeked.name,
                arguments: [.int64(position.microsecondsSaturating)])
        case .position(let position, let live):
            clock.withLock { clock in
                clock.position = position
                clock.live = live
            }
        case .progress, .ended, .jumped:
            break  // the library's business
        }
    }
}
