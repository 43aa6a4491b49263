import Foundation
import PodsFeedParser
import PodsLibrary

/// What the player does for the sync: records listening as play actions
/// when playback stops, applies the remote change kept while an episode
/// played, and moves a loaded, paused episode the sync changed.
extension LibraryPlayer {
    /// The episode playing right now (nil when paused or stopped).
    package func playingEpisodeID() async -> Int64? {
        let state = await controller.currentState()
        return state.status == .playing ? state.track?.episode?.episodeID : nil
    }

    /// Playback of `id` stopped: a remote change kept while it played
    /// applies now (and this stretch is not sent over it); else the stretch
    /// is queued as a play action.
    package func stoppedPlaying(_ id: Int64) async {
        let started = playStart?.episodeID == id ? playStart?.position : nil
        playStart = nil
        do {
            if let deferred = try library.takeDeferred(id),
               try library.applyRemote(id, position: deferred.position, completed: deferred.completed, at: deferred.at) {
                logger.info("episode \(id): the change another device made while it played applies now")
                await syncChanged(episodeID: id, position: deferred.position)
                return
            }
            let duration = await controller.currentState().track.flatMap { $0.episode?.episodeID == id ? $0.duration : nil }
            try library.recordListening(id, started: started, total: duration.map { Int(($0 / .seconds(1)).rounded()) })
        } catch {
            logger.error("could not record the listening of episode \(id) for the sync: \(error)")
        }
    }

    /// The sync changed episodes of `podcastID`: clients hear of it (one
    /// `EpisodesChanged` for many), and a loaded, paused episode moves to
    /// its new position.
    package func syncChanged(podcastID: Int64, positions: [Int64: Double?]) async {
        if positions.count > 20 {
            signals.episodesChanged(podcastID)
        } else {
            for id in positions.keys { signals.statusChanged(id) }
        }
        if let id = loaded?.id, let position = positions[id] { await moveLoaded(id, to: position) }
    }

    /// `episodeID` changed by a deferred sync change: it announces the change and moves there if loaded.
    package func syncChanged(episodeID: Int64, position: Double?) async {
        signals.statusChanged(episodeID)
        await moveLoaded(episodeID, to: position)
    }

    /// The loaded episode, if it is `episodeID` and paused, moves to `position`.
    private func moveLoaded(_ episodeID: Int64, to position: Double?) async {
        guard let position = MediaSeconds.checked(position), loaded?.id == episodeID else { return }
        let state = await controller.currentState()
        guard state.status != .playing, state.track?.episode?.episodeID == episodeID else { return }
        await controller.jump(to: .milliseconds(Int64(position * 1000)))
    }

    /// After a sync: lists and neighbours follow what it subscribed to,
    /// removed or marked.
    package func syncFinished(_ result: SyncResult) async {
        if result.subscribed + result.unsubscribed > 0 {
            signals.podcastsChanged()
            signals.queueChanged()
        }
        if result.applied > 0 || result.subscribed + result.unsubscribed > 0 { await refreshNeighbours() }
    }

    /// A download asked for, or deleted, goes to the server as gpodder.net's
    /// `download`/`delete` (Nextcloud keeps neither).
    package func recordDownload(_ episodeID: Int64, kept: Bool) {
        do { try library.recordDownload(episodeID, kept: kept) } catch {
            logger.error("could not record the download of episode \(episodeID) for the sync: \(error)")
        }
    }
}
