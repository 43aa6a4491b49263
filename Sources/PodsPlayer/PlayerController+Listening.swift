import PodsChapters
import PodsLoudness
import PodsPlayback
import PodsSettings

/// The listening session on top of playback: chapters and where `Next` and
/// `Previous` go, the loaded podcast's settings (the outro, trimmed
/// silence), and the sleep timer.
extension PlayerController {
    // MARK: - Chapters, Next and Previous

    /// Gives the loaded track its chapters (ignored when `trackID` is no
    /// longer loaded).
    public func setChapters(_ chapters: [EpisodeChapter], for trackID: TrackID) {
        guard state.track?.trackID == trackID else { return }
        timeline = ChapterTimeline(chapters)
        publish()
        matchSkippedChapters()
    }

    /// Matches the skip-chapters pattern against the timeline's titles on a
    /// task of its own, never on this actor (REVIEW-4, N11: up to 5,000
    /// chapters a file, while every MPRIS call waited), then takes the
    /// result if the timeline and the pattern are still the ones it was made from.
    func matchSkippedChapters() {
        skipMatching?.cancel()
        guard let pattern = preferences.skipChapters, !timeline.chapters.isEmpty else { return }
        let (chapters, generation) = (timeline.chapters, timelineGeneration)
        skipMatching = Task.detached { [weak self] in
            let matched = ChapterTimeline(chapters, skipping: pattern)
            guard !Task.isCancelled else { return }
            await self?.adoptMatched(matched, generation: generation, pattern: pattern)
        }
    }

    private func adoptMatched(_ matched: ChapterTimeline, generation: Int, pattern: TitlePattern) {
        guard generation == timelineGeneration, preferences.skipChapters == pattern else { return }
        timeline = matched
        publish()
        checkSkippedChapters(at: position())
    }

    /// The loaded track's chapters, silent ones too.
    public func chapters() -> [EpisodeChapter] { timeline.chapters }

    /// Tells whether an episode comes after and before `trackID` (the library knows).
    public func setNeighbours(next: Bool, previous: Bool, for trackID: TrackID) {
        guard state.track?.trackID == trackID else { return }
        neighbours = (next, previous)
        publish()
    }

    /// What the loaded podcast's settings ask of the player.
    public struct TrackPreferences: Sendable, Equatable {
        public var nextAction = NextAction.chapter
        /// The track ends this long before its end (and counts as played).
        public var skipOutro = Duration.zero
        /// Long silences play faster (see `SilenceTrimmer`).
        public var trimSilence = false
        /// Loudness levelled to this many LUFS; nil: the file as it is.
        public var loudnessTarget: Double?
        /// Pause when the output device goes away, rather than play on wherever the sound server moved the stream.
        public var pauseOnOutputLoss = true
        /// Chapters whose titles match are played past (`skip-chapters`).
        public var skipChapters: TitlePattern?

        public init(nextAction: NextAction = .chapter, skipOutro: Duration = .zero, trimSilence: Bool = false,
                    loudnessTarget: Double? = nil, pauseOnOutputLoss: Bool = true, skipChapters: TitlePattern? = nil) {
            self.nextAction = nextAction
            self.skipOutro = skipOutro
            self.trimSilence = trimSilence
            self.loudnessTarget = loudnessTarget
            self.pauseOnOutputLoss = pauseOnOutputLoss
            self.skipChapters = skipChapters
        }
    }

    public func setTrackPreferences(_ preferences: TrackPreferences) {
        guard adopt(preferences) else { return }
        publish()
    }

    /// Takes `preferences` without publishing; false when they are the ones in use.
    func adopt(_ preferences: TrackPreferences) -> Bool {
        guard preferences != self.preferences else { return false }
        let rematch = preferences.skipChapters != self.preferences.skipChapters
        if rematch {
            timeline = ChapterTimeline(timeline.chapters)
            cancelSkipTimer()
        }
        self.preferences = preferences
        if rematch { matchSkippedChapters() }
        engine?.setSilenceDetection(preferences.trimSilence)
        if !preferences.trimSilence { endSilenceBoost() }
        engine?.setLoudness(target: preferences.loudnessTarget, measurement: loudnessMeasurement)
        return true
    }

    // MARK: - Loudness

    /// Gives the loaded track its whole file's loudness (a download's, kept);
    /// ignored when `trackID` is no longer loaded.
    public func setLoudnessMeasurement(_ measurement: LoudnessMeasurement?, for trackID: TrackID) {
        guard state.track?.trackID == trackID, measurement != loudnessMeasurement else { return }
        loudnessMeasurement = measurement
        engine?.setLoudness(target: preferences.loudnessTarget, measurement: measurement)
    }

    /// The levelling gain applied now, dB; nil while loudness is not levelled.
    public func loudnessGain() -> Double? { engine?.loudnessGain }

    // MARK: - Trimmed silence

    /// Seconds of listening the trimmed silence saved in the loaded episode.
    public func silenceSkipped() -> Double { trimmer.savedSeconds }

    /// Back to the plain rate: the silence ended here, or the listener moved
    /// (`seeking`: the seek itself applies the rate, so no second one).
    func endSilenceBoost(seeking: Bool = false) {
        trimmer.interrupt(at: seeking ? nil : engine?.position())
        guard engine?.rateBoost != 1 else { return }
        if seeking { engine?.clearRateBoost() } else { engine?.setRateBoost(1) }
    }

    /// Where the outro starts, when one is skipped and the length is known.
    private var outroStart: Duration? {
        guard preferences.skipOutro > .zero, let duration = state.track?.duration, duration > preferences.skipOutro else { return nil }
        return duration - preferences.skipOutro
    }

    /// Ends the track at its outro: at once when past it, or (from the
    /// poll) exactly when the last second before it runs out.
    func checkOutro(at position: Duration) {
        guard state.status == .playing, let outroStart else { return }
        let left = (outroStart - position) / state.rate
        if left <= .milliseconds(20) {
            endOfTrack()
        } else if left < .seconds(1), outroTimer == nil {
            outroTimer = Task { [weak self] in
                try? await Task.sleep(for: left)
                guard !Task.isCancelled else { return }
                await self?.outroTimerFired()
            }
        }
    }

    private func outroTimerFired() {
        outroTimer = nil
        checkOutro(at: position())
    }

    /// Where a chapter jump goes.
    public enum ChapterTarget: Sendable, Equatable {
        case next, previous
        /// From 1.
        case number(Int)
    }

    /// Jumps to a chapter of the loaded track; an error (and no change)
    /// when there is no such chapter.
    public func goToChapter(_ target: ChapterTarget) throws(PlayerError) {
        guard state.track != nil else { throw PlayerError.failed("Nothing is loaded") }
        guard !timeline.isEmpty else { throw PlayerError.failed("This episode has no chapters") }
        guard state.canSeek else { throw PlayerError.failed("This track cannot seek") }
        let here = position() / .seconds(1)
        let start: Double? = switch target {
        case .next: timeline.nextStart(after: here)
        case .previous: timeline.previousStart(from: here, restartAfter: Self.restartAfter)
        case .number(let number): timeline.start(ofChapter: number)
        }
        guard let start else {
            throw switch target {
            case .next: PlayerError(.failed, "This is the last chapter")
            case .previous: PlayerError(.failed, "This is the first chapter")
            case .number(let number): PlayerError(.invalidArgument, "There is no chapter \(number); this episode has \(timeline.jumps.count)")
            }
        }
        jump(to: .seconds(start))
    }

    /// `Next` within the track: the next chapter, when the next action is
    /// chapters and one remains. False when `Next` must go to another episode.
    public func nextWithinTrack() -> Bool {
        guard state.track != nil, state.canSeek, preferences.nextAction == .chapter,
              let start = timeline.nextStart(after: position() / .seconds(1)) else { return false }
        jump(to: .seconds(start))
        return true
    }

    /// `Previous` within the track: back to the start of the chapter (or
    /// the track) when more than 3 s in, else to the previous chapter.
    /// False at the start of the first chapter: `Previous` goes to another episode.
    public func previousWithinTrack() -> Bool {
        guard state.track != nil, state.canSeek else { return false }
        let here = position() / .seconds(1)
        let chapterStart = preferences.nextAction == .chapter ? timeline.previousStart(from: here, restartAfter: Self.restartAfter) : nil
        if let chapterStart {
            jump(to: .seconds(chapterStart))
        } else if here > Self.restartAfter {
            jump(to: .zero)
        } else {
            return false
        }
        return true
    }

    // MARK: - Sleep timer

    /// Sets (or with `.off` clears) the sleep timer: over its last 10 s the
    /// volume fades out, then playback pauses and the volume comes back.
    /// Pausing by hand keeps it (a timer in minutes counts playing time).
    public func setSleepTimer(_ request: SleepRequest) throws(PlayerError) {
        switch request {
        case .off:
            sleep = nil
        case .time(let seconds):
            sleep = .time(.mediaSeconds(seconds), playing: state.status == .playing)
        case .endOfEpisode:
            guard state.track != nil else { throw PlayerError.failed("Nothing is loaded") }
            sleep = .endOfEpisode
        case .endOfChapter:
            guard state.track != nil else { throw PlayerError.failed("Nothing is loaded") }
            guard !timeline.isEmpty else { throw PlayerError.failed("This episode has no chapters") }
            sleep = .endOfChapter(at: chapterEnd(after: position()))
        }
        runSleepTimer()
    }

    /// The timer's mode and the seconds of listening until it pauses (nil: unknown).
    public func sleepStatus() -> (mode: String, remaining: Double?)? {
        guard let sleep else { return nil }
        let left = sleep.untilPause(positionLeft: mediaLeft(for: sleep), rate: state.rate)
        return (sleep.mode.rawValue, left.map { max(0, $0 / .seconds(1)) })
    }

    /// Media time to the end of the episode (its outro) or of the chapter
    /// the timer waits for; negative once past it.
    private func mediaLeft(for timer: SleepTimer) -> Duration? {
        let end: Duration? = switch timer.mode {
        case .time: nil
        case .episode: outroStart ?? state.track?.duration
        case .chapter: timer.chapterEnd
        }
        return end.map { $0 - position() }
    }

    /// Where the chapter playing at `position` ends.
    func chapterEnd(after position: Duration) -> Duration? {
        timeline.nextStart(after: position / .seconds(1)).map { .seconds($0) } ?? outroStart ?? state.track?.duration
    }

    /// (Re)starts the sleep timer's steps while playing; otherwise stops
    /// them and gives the pipeline its volume back.
    func runSleepTimer() {
        sleepTask?.cancel()
        sleepTask = nil
        guard sleep != nil, state.status == .playing else {
            engine?.setVolume(state.volume)
            return
        }
        sleepTask = Task { [weak self] in
            while !Task.isCancelled, let wait = await self?.sleepStep() {
                try? await Task.sleep(for: wait)
            }
        }
    }

    /// One step: the fade's volume, or the pause when due. Returns how long
    /// until the next step (at most a second, so seeks and rate changes
    /// count), nil when the timer is done.
    private func sleepStep() -> Duration? {
        guard let sleep, state.status == .playing else { return nil }
        guard let left = sleep.untilPause(positionLeft: mediaLeft(for: sleep), rate: state.rate) else {
            return .seconds(1)
        }
        if left <= .milliseconds(20) {
            // The end of the episode is the pipeline's to say (endOfTrack).
            guard sleep.mode != .episode else { return .milliseconds(50) }
            self.sleep = nil
            pause()  // stops the steps and restores the volume
            return nil
        }
        if left <= SleepTimer.fade {
            engine?.setVolume(state.volume * (left / SleepTimer.fade))
            return min(left, .milliseconds(100))
        }
        engine?.setVolume(state.volume)
        return min(left - SleepTimer.fade, .seconds(1))
    }
}
