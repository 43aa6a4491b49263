import Foundation
import PodsPlayer
import Synchronization

/// What the listening session does as the player changes: a track that is
/// no episode releases the library's; an episode that starts or stops
/// playing is told to the library player with where and when (and the
/// sync follows `sync-delay` after a stop); progress and ends go to the
/// library player. Follows the controller (`Session` registers it), so it
/// is called in the controller's turn and only hands work on.
///
/// Every event carries its facts as the controller told them: whoever
/// handles it later never asks the player where it is *now* (a pause
/// handled after a later play and seek keeps its own place).
package final class ListeningRules: Sendable {
    private let player: Playback
    private let sync: SyncService
    private let preferences: PreferenceStore
    private let tracks = TrackWatch()
    private struct Memory {
        /// The episode playing at the last state.
        var playing: Int64?
        /// The last place reported (a pause reports it before it says paused).
        var progress: (episodeID: Int64, position: Duration, duration: Duration?)?
        /// The last state's track, for the length of an episode that stops.
        var track: TrackInfo?
    }
    private let memory = Mutex(Memory())

    package init(player: Playback, sync: SyncService, preferences: PreferenceStore) {
        self.player = player
        self.sync = sync
        self.preferences = preferences
    }

    package func observe(_ change: PlayerController.Change) {
        switch change {
        case .state(let state, let position):
            if tracks.note(state.track).newTrack, let track = state.track, track.episode == nil {
                player.send(.otherTrack(load: track.load))
            }
            let playing = state.status == .playing ? state.track?.episode?.episodeID : nil
            let (before, stop) = memory.withLock { memory in
                defer {
                    memory.playing = playing
                    memory.track = state.track
                }
                guard let before = memory.playing, before != playing else { return (memory.playing, Playback.Stop?.none) }
                return (before, Self.stop(of: before, memory, state: state, position: position))
            }
            guard before != playing else { return }
            if let stop {
                player.send(.stoppedPlaying(stop))
                let delay = preferences.value(.syncDelay, podcast: nil).numberValue ?? 5
                if delay > 0 { sync.schedule(after: .mediaSeconds(delay)) }
            }
            if let playing { player.send(.startedPlaying(episodeID: playing, position: position)) }
        case .progress(let id, let position, let duration, let load):
            memory.withLock { $0.progress = (id, position, duration) }
            player.send(.progress(episodeID: id, position: position, duration: duration, load: load))
        case .ended(let id, let continues, let load):
            player.send(.ended(episodeID: id, continues: continues, load: load))
        case .seeked, .position, .jumped:
            break
        }
    }

    /// Where `episodeID` stopped: the place last reported for it, else the
    /// state's own when it is still the track; its length as last known.
    private static func stop(of episodeID: Int64, _ memory: Memory, state: PlayerState, position: Duration) -> Playback.Stop {
        let current = state.track?.episode?.episodeID == episodeID ? state.track : nil
        let known = memory.track?.episode?.episodeID == episodeID ? memory.track : current
        let reported = memory.progress.flatMap { $0.episodeID == episodeID ? $0 : nil }
        return Playback.Stop(episodeID: episodeID, position: reported?.position ?? (current == nil ? .zero : position),
                             duration: reported?.duration ?? known?.duration, at: Date())
    }
}
