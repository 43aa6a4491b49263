import Foundation
import PodsCache
import PodsChapters
import PodsFeedParser
import PodsHTTP
import PodsLibrary
import PodsPlayback
import PodsPlayer
import PodsSettings

/// The listening session's library side: the loaded podcast's settings,
/// `Next` and `Previous` across episodes, and the loaded episode's chapters.
extension Playback {
    // MARK: - Settings

    /// The settings that change what plays now (`applyPreferences`).
    package static let followedSettings: Set<SettingKey> = [
        .speed, .skipForward, .skipBack, .skipOutro, .trimSilence, .loudness, .loudnessTarget, .nextAction, .completeWithin,
        .skipChapters, .autoNext, .pauseOnOutputLoss, .audioSink, .cacheBudget,
    ]

    /// Applies changed settings: the player-wide ones, then the loaded
    /// episode's at once, when the change is for its podcast or for the
    /// player. The rate moves only for a change of the speed in force for
    /// that podcast: another podcast's speed, or a skip interval, leaves
    /// the speed the listener chose alone.
    package func applyPreferences(_ change: SettingsChange = .everything) async {
        if change.podcast == nil, change.keys.contains(.audioSink) {
            let sink = preferences.value(.audioSink, podcast: nil).textValue.flatMap { $0.isEmpty ? nil : $0 }
            do throws(PlaybackError) { try await controller.setAudioSink(sink) } catch {
                logger.error("audio-sink: \(error.message); playing through the sink before")
            }
        }
        if change.podcast == nil, change.keys.contains(.cacheBudget), let mediaCache,
           preferences.entry(.cacheBudget, podcast: nil).source != "default",
           let budget = preferences.value(.cacheBudget, podcast: nil).numberValue.map(Int64.init),
           (try? library.cacheBudget()) != budget {
            try? library.setCacheBudget(budget)
            await mediaCache.enforceBudget()
        }
        guard let loaded, change.podcast == nil || change.podcast == loaded.podcastId else { return }
        playing = preferences.playback(for: loaded.podcastId)
        let speedInForce = change.podcast != nil || preferences.entry(.speed, podcast: loaded.podcastId).source != "podcast"
        if change.keys.contains(.speed), speedInForce, let speed = playing.speed { try? await controller.setRate(speed) }
        await controller.setTrackPreferences(Self.trackPreferences(playing))
    }

    /// The loaded podcast's skip intervals.
    package func skipIntervals() -> SkipIntervals { playing.skips }

    /// The loaded episode's podcast, if any.
    package func loadedPodcastID() -> Int64? { loaded?.podcastId }

    package static func trackPreferences(_ preferences: PlaybackPreferences) -> PlayerController.TrackPreferences {
        PlayerController.TrackPreferences(nextAction: preferences.nextAction, skipOutro: .mediaSeconds(preferences.skipOutro),
                                          trimSilence: preferences.trimSilence, loudnessTarget: preferences.loudnessTarget,
                                          pauseOnOutputLoss: preferences.pauseOnOutputLoss, skipChapters: preferences.skipChapters)
    }

    // MARK: - Next and Previous

    /// `Next` past the loaded episode: the queue's head, else the next newer
    /// unplayed episode of its podcast. False when there is none.
    package func playNextEpisode(announced: Int? = nil) async throws(SessionError) -> Bool {
        guard let current = loaded?.id,
              let next = try SessionError.mapped({ () throws(LibraryError) in try library.nextEpisode(after: current) }) else { return false }
        try await play(episodeID: next.id, announced: announced)
        return true
    }

    /// `Previous` past the loaded episode's start: the episode played
    /// before it. False when there is none.
    package func playPreviousEpisode(announced: Int? = nil) async throws(SessionError) -> Bool {
        guard let target = try previousEpisodeID(), let current = loaded?.id else { return false }
        while let last = history.last, last == current { history.removeLast() }
        if history.last == target { history.removeLast() }
        try await play(episodeID: target, remember: false, announced: announced)
        return true
    }

    /// The episode `Previous` goes back to: the last in the history that is
    /// not the loaded one, else the one played before it. Reads only: the
    /// neighbours are asked for while a play is still putting its
    /// predecessor in the history.
    private func previousEpisodeID() throws(SessionError) -> Int64? {
        guard let current = loaded?.id else { return nil }
        if let last = history.last(where: { $0 != current }) { return last }
        return try SessionError.mapped { () throws(LibraryError) in try library.previouslyPlayedEpisode(before: current)?.id }
    }

    /// Tells the controller whether `Next` and `Previous` have an episode to
    /// go to (after each load, and when the queue or a played mark changes).
    package func refreshNeighbours() async {
        guard let current = loaded else { return }
        let next = (try? library.nextEpisode(after: current.id)) != nil
        let previous = ((try? previousEpisodeID()) ?? nil) != nil
        await controller.setNeighbours(next: next, previous: previous, for: TrackID.episode(current.id))
    }

    // MARK: - Chapters

    /// The `skip-chapters` pattern for `episodeID`'s podcast (0: the loaded episode's); nil when none.
    package func skippedChapters(of episodeID: Int64) -> TitlePattern? {
        let podcast = episodeID == 0 || episodeID == loaded?.id ? loaded?.podcastId : try? library.episode(episodeID).podcastId
        return preferences.playback(for: podcast).skipChapters
    }

    /// The merged chapters of `episodeID`: the loaded episode's as playing;
    /// another's from the feed, its chapters file and what is stored, its
    /// media file's own tags only once it is downloaded. Browsing (`pods ui`'s
    /// details, `pods show`) never fetches an episode's audio: that would tell
    /// every host what is browsed, and run a tag reader on a file nobody chose to play.
    package func chapters(of episodeID: Int64) async throws(SessionError) -> [EpisodeChapter] {
        if episodeID == loaded?.id || episodeID == 0 {
            guard loaded != nil else { throw SessionError.notFound("no episode is loaded") }
            return await controller.chapters()
        }
        let episode = try SessionError.mapped { () throws(LibraryError) in try library.episode(episodeID) }
        let url = preferences.audioURL(of: episode)
        guard let url, let mediaCache, HTTPClient.isHTTP(url),
              await mediaCache.isDownloaded(episodeID) else {
            return await chapterLoader.chapters(for: episode, url: url, media: nil)
        }
        let cache = try? await mediaCache.open(episodeID: episodeID, url: url, forPlayback: false)
        let chapters = await chapterLoader.chapters(for: episode, url: url, media: cache)
        if let cache { await mediaCache.release(cache) }
        return chapters
    }

    /// Reads the loaded episode's chapters and hands them to the controller,
    /// then its chapters' images as local files.
    package func loadChapters(_ episode: LibraryEpisode, url: String, media: (any RandomAccessMedia)?, load: Int) async {
        var chapters = await chapterLoader.chapters(for: episode, url: url, media: media)
        guard controller.loads.isLatest(load), !chapters.isEmpty else { return }
        let trackID = TrackID.episode(episode.id)
        await controller.setChapters(chapters, for: trackID)
        guard let artwork else { return }
        var changed = false
        for index in chapters.indices.prefix(200) {
            guard let image = chapters[index].image, HTTPClient.isHTTP(image) else { continue }
            if let local = await artwork.localURI(for: image, policy: episode.urlPolicy) {
                chapters[index].image = local
                changed = true
            }
            guard controller.loads.isLatest(load) else { return }
        }
        if changed { await controller.setChapters(chapters, for: trackID) }
    }
}

// MARK: - Smart rewind

extension Playback {
    /// Keeps where and when an episode stopped playing, for smart rewind.
    func notePause(_ stop: Stop) {
        do { try library.notePause(PausePoint(episodeId: stop.episodeID, position: stop.position / .seconds(1), at: stop.at)) } catch {
            logger.error("could not keep where playback paused: \(error)")
        }
    }

    /// How far back an episode of `podcastID` plays again from where it
    /// paused (the listener did not move it meanwhile): a little, more the
    /// longer the pause (`SmartRewind`), when the podcast's `smart-rewind`
    /// is on. Asked before playing begins, so the rewind is never heard as
    /// a jump (REVIEW-4 N23): by the controller as a paused episode plays
    /// again, by a load that plays at once for its start. A bookmark's play
    /// has none.
    func smartRewind(podcast podcastID: Int64) -> PlayerController.RewindBeforePlaying {
        let (library, preferences) = (library, preferences)
        return { id, position in
            guard let pause = try? library.lastPause(), pause.episodeId == id,
                  preferences.value(.smartRewind, podcast: podcastID).boolValue ?? true else { return .zero }
            let back = SmartRewind.seconds(afterPause: Date().timeIntervalSince(pause.at))
            guard back > 0, abs(position / .seconds(1) - pause.position) < 1.5 else { return .zero }
            return .mediaSeconds(back)
        }
    }
}
