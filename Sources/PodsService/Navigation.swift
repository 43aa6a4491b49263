import PodsDBus
import PodsPlayer

/// MPRIS `Next` and `Previous`: chapters within the loaded track first
/// (the controller), then episodes (the library). With nowhere to go they
/// stop, as the MPRIS spec asks (gsd-media-keys calls them without looking
/// at `CanGoNext`).
///
/// An episode can take seconds to start (its first bytes from a slow
/// server), so the load is announced to the player first and the caller's
/// later calls go ahead at once: a media key's `Pause` after `Next` is
/// answered at once and leaves the next episode paused.
struct Navigation: Sendable {
    let controller: PlayerController
    let player: LibraryPlayer?

    func next() async throws(DBusError) {
        if await controller.nextWithinTrack() { return }
        try await toEpisode { announced throws(DBusError) in try await player?.playNextEpisode(announced: announced) ?? false }
    }

    func previous() async throws(DBusError) {
        if await controller.previousWithinTrack() { return }
        try await toEpisode { announced throws(DBusError) in try await player?.playPreviousEpisode(announced: announced) ?? false }
    }

    private func toEpisode(_ play: (Int) async throws(DBusError) -> Bool) async throws(DBusError) {
        let announced = await controller.announceLoad()
        DBusCall.letLaterCallsStart()
        let played: Bool
        do throws(DBusError) { played = try await play(announced) } catch {
            await controller.withdrawLoad(announced)
            throw error
        }
        if !played {
            await controller.withdrawLoad(announced)
            await controller.stop()
        }
    }
}
