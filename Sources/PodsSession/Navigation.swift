import PodsPlayer

/// MPRIS `Next` and `Previous`: chapters within the loaded track first
/// (the controller), then episodes (the library). With nowhere to go they
/// stop, as the MPRIS spec asks (gsd-media-keys calls them without looking
/// at `CanGoNext`).
///
/// An episode can take seconds to start (its first bytes from a slow
/// server), so the load is announced to the player first, then
/// `whenAnnounced` runs: the bus lets the caller's later calls go ahead, so
/// a media key's `Pause` after `Next` is answered at once and leaves the
/// next episode paused.
package struct Navigation: Sendable {
    package let controller: PlayerController
    package let player: Playback?

    package init(controller: PlayerController, player: Playback?) {
        self.controller = controller
        self.player = player
    }

    package func next(whenAnnounced: () -> Void = {}) async throws(SessionError) {
        if await controller.nextWithinTrack() { return }
        try await toEpisode(whenAnnounced) { announced throws(SessionError) in try await player?.playNextEpisode(announced: announced) ?? false }
    }

    package func previous(whenAnnounced: () -> Void = {}) async throws(SessionError) {
        if await controller.previousWithinTrack() { return }
        try await toEpisode(whenAnnounced) { announced throws(SessionError) in try await player?.playPreviousEpisode(announced: announced) ?? false }
    }

    private func toEpisode(_ whenAnnounced: () -> Void,
                           _ play: (Int) async throws(SessionError) -> Bool) async throws(SessionError) {
        let announced = await controller.announceLoad()
        whenAnnounced()
        let played: Bool
        do throws(SessionError) { played = try await play(announced) } catch {
            await controller.withdrawLoad(announced)
            throw error
        }
        if !played {
            await controller.withdrawLoad(announced)
            await controller.stop()
        }
    }
}
