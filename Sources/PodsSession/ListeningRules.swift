import PodsChapters
import PodsPlayer
import Synchronization

/// What the listening session does as the player changes (the rules the
/// composition root used to hold in its observer): a track that is no
/// episode releases the library's; an episode that starts or stops playing
/// is recorded (for the sync, which follows `sync-delay` after a stop)
/// and every stretch of it kept in the listening log;
/// progress and ends go to the library player; the settings recorder
/// hears every state. Called on the controller's turn, so it only hands
/// work on.
package final class ListeningRules: Sendable {
    private let player: Playback?
    private let recorder: SettingsRecorder
    private let sync: SyncService?
    private let preferences: PreferenceStore
    private let listening: ListeningLog?
    private let lastTrack = Mutex<TrackInfo?>(nil)
    private let lastPlaying = Mutex<Int64?>(nil)

    package init(player: Playback?, recorder: SettingsRecorder, sync: SyncService?, preferences: PreferenceStore,
                 listening: ListeningLog?) {
        self.listening = listening
        self.player = player
        self.recorder = recorder
        self.sync = sync
        self.preferences = preferences
    }

    /// What changed about the track: another one (`newTrack`), or anything of it (`changed`).
    package struct TrackChange {
        package var newTrack: Bool
        package var changed: Bool
    }

    @discardableResult
    package func observe(_ change: PlayerController.Change) -> TrackChange {
        listening?.observe(change)
        switch change {
        case .state(let state):
            recorder.observe(state)
            let (newTrack, changed) = lastTrack.withLock { last in
                defer { last = state.track }
                return (last?.trackID != state.track?.trackID, last != state.track)
            }
            if newTrack, let track = state.track, track.episode == nil { player?.send(.otherTrack(load: track.load)) }
            // Listening is recorded for the sync when it stops, and a sync follows a few seconds later.
            let playing = state.status == .playing ? state.track?.episode?.episodeID : nil
            let before = lastPlaying.withLock { last in
                defer { last = playing }
                return last
            }
            if before != playing {
                if let before {
                    player?.send(.stoppedPlaying(episodeID: before))
                    let delay = preferences.value(.syncDelay, podcast: nil).numberValue ?? 5
                    if delay > 0 { sync?.schedule(after: .mediaSeconds(delay)) }
                }
                if let playing { player?.send(.startedPlaying(episodeID: playing)) }
            }
            return TrackChange(newTrack: newTrack, changed: changed)
        case .progress(let id, let position, let duration, let load):
            player?.send(.progress(episodeID: id, position: position, duration: duration, load: load))
        case .ended(let id, let continues, let load):
            player?.send(.ended(episodeID: id, continues: continues, load: load))
        case .seeked, .position, .jumped:
            break
        }
        return TrackChange(newTrack: false, changed: false)
    }
}
