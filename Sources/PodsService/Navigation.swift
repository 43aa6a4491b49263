import PodsDBus

/// MPRIS `Next` and `Previous`: chapters within the loaded track first
/// (the controller), then episodes (the library). With nowhere to go they
/// stop, as the MPRIS spec asks (gsd-media-keys calls them without looking
/// at `CanGoNext`).
struct Navigation: Sendable {
    let controller: PlayerController
    let player: LibraryPlayer?

    func next() async throws(DBusError) {
        if await controller.nextWithinTrack() { return }
        if let player, try await player.playNextEpisode() { return }
        await controller.stop()
    }

    func previous() async throws(DBusError) {
        if await controller.previousWithinTrack() { return }
        if let player, try await player.playPreviousEpisode() { return }
        await controller.stop()
    }
}
