import Foundation
import PodsChapters
import PodsFeedParser
import PodsLibrary

/// What the player does for the sync: records listening as play actions
/// when playback stops, applies the remote change kept while an episode
/// played, and moves a loaded, paused episode the sync changed.
extension Playback {
    /// The episode playing right now (nil when paused or stopped).
    package func playingEpisodeID() async -> Int64? {
        let state = await controller.currentState()
        return state.status == .playing ? state.track?.episode?.episodeID : nil
    }

    /// Playback stopped: a remote change kept while it played applies now
    /// (and this stretch is not sent over it); else the stretch is queued
    /// as a play action. Only the stop's own facts are used: the player
    /// may have moved on since.
    func stoppedPlaying(_ stop: Stop) async {
        let id = stop.episodeID
        let started = playStart?.episodeID == id ? playStart?.position : nil
        playStart = nil
        if loaded?.id == id, loadedIsDetour { return }  // a bookmark's play: the sync hears nothing of it
        notePause(stop)
        do {
            if let deferred = try library.takeDeferred(id),
               try library.applyRemote(id, position: deferred.position, completed: deferred.completed, at: deferred.at) {
                logger.info("episode \(id): the change another device made while it played applies now")
                await moveLoaded(id, to: deferred.position)
                return
            }
            try library.recordListening(id, started: started, total: stop.duration.map { Int(($0 / .seconds(1)).rounded()) })
        } catch {
            logger.error("could not record the listening of episode \(id) for the sync: \(error)")
        }
    }

    /// The sync changed `positions` (by episode): a loaded, paused episode
    /// moves to its new position (the library announces the rest).
    package func syncChanged(positions: [Int64: Double?]) async {
        if let id = loaded?.id, let position = positions[id] { await moveLoaded(id, to: position) }
    }

    /// The loaded episode, if it is `episodeID` and paused, moves to `position`.
    private func moveLoaded(_ episodeID: Int64, to position: Double?) async {
        guard let position = MediaSeconds.checked(position), loaded?.id == episodeID else { return }
        await controller.movePaused(episodeID, to: .mediaSeconds(position))  // judged in the controller's turn
    }
}
