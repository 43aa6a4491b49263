import PodsCache
import Synchronization

/// On a metered network downloads wait, unless `metered-downloads` allows
/// them: follows the network (`networkChanged`) and the setting.
package final class MeteredDownloads: Sendable {
    private let mediaCache: MediaCache?
    private let preferences: PreferenceStore
    private let metered = Mutex(false)

    package init(mediaCache: MediaCache?, preferences: PreferenceStore) {
        self.mediaCache = mediaCache
        self.preferences = preferences
        preferences.follow([.meteredDownloads]) { [self] _ in Task { await apply() } }
    }

    /// The network became metered, or stopped being.
    package func networkChanged(metered: Bool) async {
        self.metered.withLock { $0 = metered }
        await apply()
    }

    private func apply() async {
        let waits = metered.withLock { $0 } && preferences.value(.meteredDownloads, podcast: nil).textValue != "allow"
        await mediaCache?.setMetered(waits)
    }
}
