import Logging
import PodsLibrary
import PodsPlayer
import Synchronization

/// Saves speed and volume to the library when they change, on a task of
/// its own, so a slow disk never holds up the controller or its signals.
package final class SettingsRecorder: Sendable {
    private let lastSeen: Mutex<PlaybackSettings>
    private let pending: AsyncStream<PlaybackSettings>.Continuation
    private let writes: AsyncStream<PlaybackSettings>

    package init(initial: PlaybackSettings) {
        lastSeen = Mutex(initial)
        (writes, pending) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Follows the controller (called synchronously, in its turn).
    package func observe(_ change: PlayerController.Change) {
        guard case .state(let state, _) = change else { return }
        let current = PlaybackSettings(rate: state.rate, volume: state.volume)
        let changed = lastSeen.withLock { last in
            defer { last = current }
            return last != current
        }
        if changed { pending.yield(current) }
    }

    /// Writes the newest settings until `finish()`; a failed write is logged
    /// and the next change tries again.
    package func run(library: Library, logger: Logger) async {
        for await settings in writes {
            do {
                try library.save(settings)
            } catch {
                logger.error("could not save settings: \(error)")
            }
        }
    }

    package func finish() { pending.finish() }
}
