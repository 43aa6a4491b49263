import PodsChapters
import PodsLoudness
import PodsPlayback
import Synchronization

/// The one owner of the player's state.
///
/// Every change happens here, and each ends with `publish()`, which hands
/// the new state to its followers in the same turn (MPRIS turns that into
/// `PropertiesChanged`). While playing, a poll reads the position once a
/// second of the episode, to report progress and notice jumps; while paused
/// or stopped nothing runs. The GStreamer pipeline is built when the first
/// track loads: until then podsd holds no pipeline, sink or bus thread.
public actor PlayerController {
    // State the listening session's extension (PlayerController+Listening)
    // shares is internal; nothing outside the controller's files touches it.
    /// What the controller tells its followers.
    public enum Change: Sendable {
        /// The state as published, with the position it was published at.
        case state(PlayerState, position: Duration)
        /// The position jumped (seek, rewind, discontinuity).
        case seeked(Duration)
        /// A jump asked for (a seek, a chapter step, a bookmark's place), told
        /// before anything else of it: the listening log ends a stretch at
        /// `from` and begins another at `to`. Trimmed silence is no jump.
        case jumped(from: Duration, to: Duration)
        /// Where the listener is in an episode: every second while playing,
        /// and at once on pause, seek, stop, track change and shutdown. `load`:
        /// the track's `TrackInfo.load`, so an old one is one comparison.
        case progress(episodeID: Int64, position: Duration, duration: Duration?, load: Int)
        /// An episode played to its end; `continues` is false when the sleep
        /// timer was waiting for that end (what plays next should wait, paused).
        case ended(episodeID: Int64, continues: Bool, load: Int)
        /// Where playback is, after every published state, poll and seek.
        /// `live`, set while playing and settled, reads the pipeline's own
        /// position until the next one; without it, `position` holds (a
        /// seek or a load settling, paused, stopped).
        case position(Duration, live: PositionReader?)
    }

    private var audioSink: String?
    /// The pipeline, from the first `open` on.
    var engine: PlaybackEngine?
    /// Tells `run()` that the pipeline exists.
    private let engineBuilt: AsyncStream<Void>
    private let engineReady: AsyncStream<Void>.Continuation
    var state = PlayerState()
    /// Who hears of every change, in the order they began to follow.
    private nonisolated let followers = Mutex<[@Sendable (Change) -> Void]>([])
    private var loadCount = 0
    private var positionPoll: Task<Void, Never>?
    /// A load announced and not yet opened (`announceLoad`).
    private var announcedLoad: AnnouncedLoad?

    /// How far back playing again goes for the loaded episode, asked with
    /// its id and place as `play()` begins (the session's smart rewind);
    /// nil: never.
    public typealias RewindBeforePlaying = @Sendable (_ episodeID: Int64, _ position: Duration) -> Duration
    private var rewindBeforePlaying: RewindBeforePlaying?

    /// What `play()` asks before playing a paused track (nil: nothing), until the next load sets it again.
    public func setRewindBeforePlaying(_ rewind: RewindBeforePlaying?) { rewindBeforePlaying = rewind }
    /// Every load's number, the controller's own and those its callers take first.
    public nonisolated let loads = LoadNumbers()
    private struct AnnouncedLoad {
        let id: Int
        /// Whether it plays once loaded, as the transport calls since it was announced left it.
        var plays: Bool
    }
    private let explainNetworkFailure: (@Sendable (String) -> PlaybackError?)?
    private let stallLimit: Duration
    private var loadWaiters: [Int: CheckedContinuation<Result<Void, PlaybackError>, Never>] = [:]
    private var nextWaiterID = 0
    /// A track is loading: whether it can seek is not known yet, and a seek
    /// asked for now waits for the pipeline (a listener who seeks right after
    /// an auto-next or a Next from another client is not ignored).
    private var loading = false
    /// The last polled position and when it was read, to spot jumps.
    private var lastPoll: (position: Duration, at: ContinuousClock.Instant)?
    /// The loaded track's chapters.
    var timeline = ChapterTimeline() {
        didSet { timelineGeneration &+= 1 }
    }
    /// Counts the timelines set, so that a skip-chapters match made off this
    /// actor is taken only for the timeline it was made from.
    var timelineGeneration = 0
    /// Matches the skip-chapters pattern against the chapters' titles, off this actor.
    var skipMatching: Task<Void, Never>?
    /// Whether an episode comes before and after the loaded one.
    var neighbours = (next: false, previous: false)
    var preferences = TrackPreferences()
    /// Ends the track at its outro.
    var outroTimer: Task<Void, Never>?
    /// Jumps past a skipped chapter as it begins.
    var skipTimer: Task<Void, Never>?
    /// The start of the skipped chapter the listener jumped into (it plays).
    var chosenSkippedChapter: Double?
    var trimmer = SilenceTrimmer()
    /// The loaded track's timed transcript, and what follows it.
    var transcript = TranscriptTimeline()
    var cueTimer: Task<Void, Never>?
    var lastCueChange: ContinuousClock.Instant?
    /// The loaded file's whole loudness, when a download's was measured.
    var loudnessMeasurement: LoudnessMeasurement?
    var sleep: SleepTimer?
    /// Fades and pauses for the sleep timer, while playing.
    var sleepTask: Task<Void, Never>?

    /// `Previous` this far (seconds) into a chapter or episode goes back to its start.
    static let restartAfter = 3.0

    /// Where a seek in media of unknown length stops (no podcast is longer).
    static let longestSeek: Duration = .seconds(100 * 24 * 3600)

    /// How long `open` waits for a source to start before replying anyway.
    public static let openTimeout: Duration = .seconds(10)

    /// Checks `audioSink` (a `gst-launch` description, nil for the
    /// desktop's default) at once; the pipeline itself waits for a track.
    /// `explainNetworkFailure` is asked why a network stream failed (`PlaybackEngine`).
    /// `stallLimit`: how long the pipeline may take over one state change
    /// before it is given up and replaced (`PlaybackEngine`).
    public init(audioSink: String?, stallLimit: Duration = .seconds(10),
                explainNetworkFailure: (@Sendable (String) -> PlaybackError?)? = nil) throws(PlaybackError) {
        self.explainNetworkFailure = explainNetworkFailure
        self.stallLimit = stallLimit
        try PlaybackEngine.checkAudioSink(audioSink)
        self.audioSink = audioSink
        (engineBuilt, engineReady) = AsyncStream<Void>.makeStream()
    }

    /// The pipeline, built on first use with the rate and volume set so far.
    private func loadedEngine() throws(PlaybackError) -> PlaybackEngine {
        if let engine { return engine }
        let engine = try PlaybackEngine(audioSink: audioSink, stallLimit: stallLimit, explainNetworkFailure: explainNetworkFailure)
        engine.setRate(state.rate)
        engine.setVolume(state.volume)
        engine.setSilenceDetection(preferences.trimSilence)
        engine.setLoudness(target: preferences.loudnessTarget, measurement: loudnessMeasurement)
        self.engine = engine
        engineReady.yield()
        engineReady.finish()
        return engine
    }

    /// Plays through `description` (nil: the desktop's default) from the
    /// next track that loads; an invalid one is an error and changes nothing.
    public func setAudioSink(_ description: String?) throws(PlaybackError) {
        guard description != audioSink else { return }
        try PlaybackEngine.checkAudioSink(description)
        try engine?.setAudioSink(description)
        audioSink = description
    }

    /// Adds a follower of every change, after those that follow already.
    /// Each is called on this actor, synchronously, in the turn that made
    /// the change (so MPRIS's `PropertiesChanged` leaves before the reply):
    /// it hands work on, never waits.
    public nonisolated func follow(_ follower: @escaping @Sendable (Change) -> Void) {
        followers.withLock { $0.append(follower) }
    }

    /// Tells every follower of `change`, in order.
    private func tell(_ change: Change) {
        for follower in followers.withLock({ $0 }) { follower(change) }
    }

    /// Handles pipeline events until `shutdown()`.
    public func run() async {
        for await _ in engineBuilt {
            guard let engine else { continue }
            for await message in engine.events {
                if let event = engine.handle(message) { handle(event) }
            }
        }
    }

    /// Stops playback and releases the pipeline.
    public func shutdown() {
        reportProgress()
        positionPoll?.cancel()
        positionPoll = nil
        engine?.shutdown()
        engineReady.finish()
        finishLoadWaiters(.success(()))
    }

    // MARK: - Reading

    public func currentState() -> PlayerState { state }

    /// The live position: the pipeline's own (else the last it said or was
    /// sent to, never 0 for a pipeline between states), 0 when stopped,
    /// always within [0, duration].
    public func position() -> Duration {
        guard state.track != nil, state.status != .stopped else { return .zero }
        var position = engine?.currentPosition ?? .zero
        if let duration = state.track?.duration { position = min(position, duration) }
        return max(position, .zero)
    }

    // MARK: - Transport

    /// Loads `source` and plays it. Returns once it plays, or with the error
    /// that stopped it (or after `openTimeout`, still loading).
    ///
    /// With `episode`, the track is that library episode (its metadata and
    /// trackid); `start` and `paused` load it where the listener stopped
    /// without playing (resume on launch).
    /// `announced` is the id `announceLoad()` gave for this load: what
    /// transport calls said while it was being prepared applies to it.
    ///
    /// A load is one change: the track's own `rate` and `preferences` (a
    /// podcast's speed, its outro) are taken with it, so the first state
    /// published for the new track (one `PropertiesChanged`) already
    /// describes it whole, never the old track at the new rate. `loudness`:
    /// the file's whole loudness, when a download's was measured.
    public func open(_ source: MediaSource, episode: EpisodeMetadata? = nil, startingAt start: Duration = .zero,
                     paused: Bool = false, announced: Int? = nil, rate: Double? = nil,
                     preferences: TrackPreferences? = nil, loudness: LoudnessMeasurement? = nil) async throws(PlaybackError) {
        // A load announced before another that has been announced since gives way to it: the last asked for wins.
        if let announced, announced < loads.latest { throw PlaybackError(.other, "replaced by another track") }
        var paused = paused
        if let announced, let pending = announcedLoad, pending.id == announced {
            paused = paused || !pending.plays
            announcedLoad = nil
        }
        let load = announced ?? loads.take()
        let engine = try loadedEngine()
        reportProgress()
        if let rate, rate.isFinite, rate > 0 {
            state.rate = PlaybackEngine.clampedRate(rate)
            engine.setRate(state.rate)
        }
        if let preferences { _ = adopt(preferences) }
        loadCount += 1
        let trackID = episode?.trackID ?? .other(load: loadCount)
        let previousTrackID = state.track?.trackID
        // Reopening the same episode (its cache restarted) keeps the callers
        // waiting for it; another track ends their wait.
        if trackID != state.track?.trackID {
            finishLoadWaiters(.failure(PlaybackError(.other, "replaced by another track")))
        }
        state.track = TrackInfo(trackID: trackID, source: source, tags: MediaTags(), duration: nil, episode: episode, load: load)
        cancelSkipTimer()
        chosenSkippedChapter = nil
        if trackID != previousTrackID {
            timeline = ChapterTimeline()
            neighbours = (false, false)
            trimmer.reset()
            clearTranscript()
        }
        if trackID != previousTrackID || loudness != nil, loudness != loudnessMeasurement {
            loudnessMeasurement = loudness
            engine.setLoudness(target: self.preferences.loudnessTarget, measurement: loudness)
        }
        endSilenceBoost(seeking: true)  // the load starts at the plain rate
        state.canSeek = false
        loading = true
        state.lastError = nil
        state.pausedBecause = nil
        state.isBuffering = false
        engine.load(source, startingAt: max(start, .zero))
        if paused {
            engine.pause()
            setStatus(.paused)
        } else {
            engine.play()
            setStatus(.playing)
        }
        let result = await waitForLoad()
        try result.get()
        // A caller that stopped waiting (its D-Bus call timed out) leaves the load going on.
        if !Task.isCancelled { await awaitDuration() }
    }

    /// Some formats (MP3 without a Xing header) know their duration only
    /// just after preroll; wait briefly so `Metadata` has `mpris:length`
    /// when `OpenUri` returns. A stream without one stays without.
    private func awaitDuration() async {
        for _ in 0..<25 {
            guard state.track?.duration == nil, state.status != .stopped else { return }
            try? await Task.sleep(for: .milliseconds(20))
            refreshTrackFacts()
        }
    }

    /// Says a load is coming (the next episode, its first bytes still on the
    /// way): `Play`, `Pause`, `PlayPause` and `Stop` that arrive before it
    /// reaches `open` apply to it too, as if it had loaded at once, so
    /// `Next` then `Pause` ends paused on the next episode. Pass the id to `open`.
    public func announceLoad() -> Int {
        let load = loads.take()
        announce(load)
        return load
    }

    /// Announces a load whose number the caller took (`loads.take()`) before
    /// its first await; a number older than the newest announces nothing.
    public func announce(_ load: Int) {
        guard load == loads.latest else { return }
        announcedLoad = AnnouncedLoad(id: load, plays: true)
    }

    /// Whether `load` (`TrackInfo.load`) is the last load taken:
    /// false once another has been, so an event about it is old news.
    public nonisolated func isLatestLoad(_ load: Int) -> Bool { loads.isLatest(load) }

    /// The last load taken (what `isLatestLoad` compares with).
    public nonisolated var latestLoad: Int { loads.latest }

    /// The announced load will not come (it failed, or there was nothing to load).
    public func withdrawLoad(_ id: Int) {
        if announcedLoad?.id == id { announcedLoad = nil }
    }

    public func play() {
        announcedLoad?.plays = true
        guard state.track != nil, state.status != .playing else { return }
        state.lastError = nil
        state.pausedBecause = nil
        // Back a little before a word is heard (a rewind once playing had begun was heard as a jump, REVIEW-4 N23).
        if announcedLoad == nil, state.status == .paused, let rewindBeforePlaying, let id = state.track?.episode?.episodeID {
            rewind(by: rewindBeforePlaying(id, position()))
        }
        engine?.play()
        setStatus(.playing)
    }

    public func pause() {
        announcedLoad?.plays = false
        guard state.track != nil, state.status == .playing else { return }
        // The place first, read while the pipeline still plays (one changing state may not say), and
        // reported before the state says paused: that is when the library records the listening for the sync.
        reportProgress()
        engine?.pause()
        setStatus(.paused)
    }

    /// Playing → paused; paused or stopped → playing.
    public func playPause() throws(PlayerError) {
        if let coming = announcedLoad { return coming.plays ? pause() : play() }
        guard state.track != nil else { throw PlayerError(.notSupported, "No track is loaded") }
        if state.status == .playing { pause() } else { play() }
    }

    /// Stops at position 0; the track stays loaded and `play()` restarts it.
    public func stop() {
        announcedLoad?.plays = false
        guard state.track != nil, state.status != .stopped else { return }
        let wasAway = position() > .zero
        reportProgress()  // the listener's place is kept; only the player goes back to 0
        engine?.stop()
        state.isBuffering = false
        setStatus(.stopped)
        if wasAway { tell(.seeked(.zero)) }
    }

    // MARK: - Position

    /// Moves by `offset`: clamped at 0; past the end it ends the track.
    public func seek(by offset: Duration) {
        guard state.track != nil, state.canSeek || loading else { return }
        let target = min(max(position() + offset, .zero), Self.longestSeek)
        if let duration = state.track?.duration, target >= duration {
            endOfTrack()
            return
        }
        jump(to: target)
    }

    /// Moves to `position` of `trackID`; ignored for a stale track id, a
    /// negative position, or one past the end.
    public func setPosition(trackID: TrackID, _ position: Duration) {
        guard let track = state.track, track.trackID == trackID, state.canSeek || loading, position >= .zero else { return }
        if let duration = track.duration, position > duration { return }
        jump(to: position)
    }

    /// Moves to `target` (a stopped track pauses there).
    public func jump(to target: Duration) {
        if state.status == .playing { tell(.jumped(from: position(), to: target)) }
        noteJump(to: target)
        if state.status == .stopped {
            engine?.seek(to: target)
            engine?.pause()
            setStatus(.paused)
        } else {
            engine?.seek(to: target)
        }
        lastPoll = (target, .now)
        outroTimer?.cancel()
        outroTimer = nil
        if sleep?.mode == .chapter { sleep?.chapterEnd = chapterEnd(after: target) }  // the chapter jumped to
        endSilenceBoost(seeking: true)
        if refreshNavigation(at: target) { tell(.state(state, position: target)) }
        announcePosition(target)
        tell(.seeked(target))
        if let track = state.track, let episode = track.episode {
            tell(.progress(episodeID: episode.episodeID, position: target, duration: track.duration, load: track.load))
        }
        checkSkippedChapters(at: target)  // one just ahead is timed from here
    }

    /// Moves `episodeID` to `target` if it is the loaded track and not
    /// playing; judged in this turn, so a play begun meanwhile is never moved.
    public func movePaused(_ episodeID: Int64, to target: Duration) {
        guard state.status != .playing, state.track?.episode?.episodeID == episodeID else { return }
        jump(to: target)
    }

    /// Points the loaded episode's `mpris:artUrl` at `uri` (a local copy).
    public func setArtwork(_ uri: String, forEpisode episodeID: Int64) {
        guard var track = state.track, var episode = track.episode, episode.episodeID == episodeID,
              episode.artworkURL != uri else { return }
        episode.artworkURL = uri
        track.episode = episode
        state.track = track
        publish()
    }

    // MARK: - Rate and volume

    /// Sets the rate: 0 pauses (the rate stays); others are clamped to
    /// `PlaybackEngine.rateRange`.
    public func setRate(_ rate: Double) throws(PlayerError) {
        guard rate.isFinite, rate >= 0 else {
            throw PlayerError.invalidArgument("Rate must be between \(PlaybackEngine.rateRange.lowerBound) and \(PlaybackEngine.rateRange.upperBound)")
        }
        if rate == 0 { return pause() }
        state.rate = PlaybackEngine.clampedRate(rate)
        engine?.setRate(state.rate)
        lastPoll = nil
        publish()
        cancelSkipTimer()  // timed at the old rate
        checkSkippedChapters(at: position())
    }

    /// Sets the volume: negative gives 0, above the maximum gives the maximum.
    public func setVolume(_ volume: Double) throws(PlayerError) {
        guard !volume.isNaN else { throw PlayerError.invalidArgument("Volume must be a number") }
        state.volume = PlaybackEngine.clampedVolume(volume)
        engine?.setVolume(state.volume)
        publish()
    }

    // MARK: - Pipeline events

    private func handle(_ event: PlaybackEvent) {
        guard let engine else { return }  // events come only from a pipeline
        switch event {
        case .asyncDone:
            if engine.audioStreamCount() == 0 {
                engine.stop()
                return handle(.error(PlaybackError(.undecodable, "There is no audio in this file")))
            }
            loading = false
            refreshTrackFacts()
            if !engine.isSettling { finishLoadWaiters(.success(())) }
            checkSkippedChapters(at: position())  // it can seek now
        case .durationChanged:
            refreshTrackFacts()
        case .tags(let tags):
            guard var track = state.track else { return }
            track.tags = track.tags.merging(tags)
            state.track = track
            publish()
        case .buffering(let percent):
            updateBuffering(percent: percent)
        case .endOfStream:
            endOfTrack()
        case .level(let peak, let end):
            guard preferences.trimSilence, state.status == .playing, !engine.isSettling, let here = engine.position() else { return }
            switch trimmer.observe(peak: peak, end: end, position: here) {
            case .speedUp:
                engine.setRateBoost(SilenceTrimmer.boost)
            case .resume(let target):
                engine.clearRateBoost()
                engine.seek(to: target)
                lastPoll = (target, .now)
                if target - here >= .seconds(1) { tell(.seeked(target)) }  // a jump clients should hear of
                announcePosition(target)
            case nil:
                break
            }
        case .outputDevice(let device, let previousGone):
            // Gone while playing: paused, so the episode does not go on from another speaker (in public).
            guard previousGone, preferences.pauseOnOutputLoss, state.status == .playing else { return }
            pause()
            state.pausedBecause = "the audio output went away; now \(device.prefix(120)) would play it, so Pods paused"
            publish()
        case .error(let error):
            loading = false
            state.lastError = error.message
            state.isBuffering = false
            setStatus(.stopped)
            finishLoadWaiters(.failure(error))
        }
    }

    private func refreshTrackFacts() {
        guard var track = state.track, let engine else { return }
        if let duration = engine.duration() { track.duration = duration }
        state.track = track
        state.canSeek = engine.isSeekable()
        publish()
    }

    private func updateBuffering(percent: Int) {
        let buffering = percent < 100
        guard buffering != state.isBuffering else { return }
        state.isBuffering = buffering
        if state.status == .playing {
            if buffering { engine?.pause() } else { engine?.play() }
        }
        publish()
    }

    /// End of the media (or of what the outro leaves): stopped at the start, still loaded.
    func endOfTrack() {
        let sleepsHere = sleep?.mode == .episode
        if sleepsHere { sleep = nil }
        engine?.stop()
        state.isBuffering = false
        setStatus(.stopped)
        if let track = state.track, let episode = track.episode {
            tell(.ended(episodeID: episode.episodeID, continues: !sleepsHere, load: track.load))
        }
    }

    // MARK: - Publishing

    private func setStatus(_ status: PlaybackStatus) {
        if status != .playing { endSilenceBoost() }
        state.status = status
        if status == .playing { startPositionPoll() } else { stopPositionPoll() }
        sleep?.setPlaying(status == .playing)
        runSleepTimer()
        publish()
        if status == .playing { checkSkippedChapters(at: position()) }  // an episode that begins with one
    }

    func publish() {
        let now = position()
        refreshNavigation(at: now)
        followTranscript(at: now)
        tell(.state(state, position: now))
        announcePosition(now)
    }

    /// Updates the chapter playing and where Next and Previous go, for
    /// `position`; true when any of it changed.
    @discardableResult
    private func refreshNavigation(at position: Duration) -> Bool {
        let seconds = position / .seconds(1)
        let before = (state.chapter, state.chapterImage, state.canGoNext, state.canGoPrevious)
        let hasTrack = state.track != nil
        state.chapter = timeline.current(at: seconds)
        state.chapterImage = timeline.image(at: seconds).flatMap { $0.hasPrefix("file:") ? $0 : nil }
        let chapterAhead = preferences.nextAction == .chapter && timeline.nextStart(after: seconds) != nil
        state.canGoNext = hasTrack && ((state.canSeek && chapterAhead) || neighbours.next)
        let canGoBack = state.canSeek && (seconds > Self.restartAfter
            || (preferences.nextAction == .chapter && timeline.previousStart(from: seconds, restartAfter: Self.restartAfter) != nil))
        state.canGoPrevious = hasTrack && (canGoBack || neighbours.previous)
        return before != (state.chapter, state.chapterImage, state.canGoNext, state.canGoPrevious)
    }

    /// Tells the followers where playback is now (see `Change.position`);
    /// `known` spares a query when the caller has just read it.
    private func announcePosition(_ known: Duration? = nil) {
        let live = state.status == .playing && engine?.isSettling == false ? engine?.positionReader : nil
        tell(.position(known ?? position(), live: live))
    }

    /// Tells the followers where the listener is in the loaded episode.
    private func reportProgress() {
        guard let track = state.track, let episode = track.episode, state.status != .stopped else { return }
        tell(.progress(episodeID: episode.episodeID, position: position(), duration: track.duration, load: track.load))
    }

    // MARK: - Position poll (only while playing)

    private func startPositionPoll() {
        guard positionPoll == nil else { return }
        lastPoll = nil
        positionPoll = Task { [weak self] in
            while !Task.isCancelled {
                // Once a second of the episode, faster than real time at
                // rates above 1, so progress is never more than a second old.
                let rate = await self?.state.rate ?? 1
                try? await Task.sleep(for: .seconds(1) / max(1, rate))
                guard !Task.isCancelled, let self else { return }
                await self.pollPosition()
            }
        }
    }

    private func stopPositionPoll() {
        positionPoll?.cancel()
        positionPoll = nil
        lastPoll = nil
        outroTimer?.cancel()
        outroTimer = nil
        cancelSkipTimer()
    }

    /// Emits `Seeked` when the position moved in a way the rate does not
    /// explain (a stall that skipped, a stream that jumped).
    private func pollPosition() {
        guard state.status == .playing, !state.isBuffering, let engine, !engine.isSettling,
              let now = engine.position() else {
            lastPoll = nil
            return
        }
        let readAt = ContinuousClock.now
        if let last = lastPoll {
            let expected = last.position + (readAt - last.at) * (state.rate * (engine.rateBoost))
            let drift = now > expected ? now - expected : expected - now
            if drift > .milliseconds(1500) { tell(.seeked(now)) }
        }
        lastPoll = (now, readAt)
        if refreshNavigation(at: now) { tell(.state(state, position: now)) }
        announcePosition(now)
        reportProgress()
        checkOutro(at: now)
        checkSkippedChapters(at: now)
    }

    // MARK: - Waiting for a load

    /// Waits for the load to play or fail, at most `openTimeout`; a
    /// cancelled caller stops waiting at once (the load goes on).
    private func waitForLoad() async -> Result<Void, PlaybackError> {
        nextWaiterID += 1
        let id = nextWaiterID
        let timeout = Task { [weak self] in
            try? await Task.sleep(for: Self.openTimeout)
            await self?.finishLoadWaiter(id, .success(()))
        }
        defer { timeout.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { return continuation.resume(returning: .success(())) }
                loadWaiters[id] = continuation
            }
        } onCancel: {
            Task { [weak self] in await self?.finishLoadWaiter(id, .success(())) }
        }
    }

    private func finishLoadWaiter(_ id: Int, _ result: Result<Void, PlaybackError>) {
        loadWaiters.removeValue(forKey: id)?.resume(returning: result)
    }

    private func finishLoadWaiters(_ result: Result<Void, PlaybackError>) {
        let waiters = loadWaiters
        loadWaiters.removeAll()
        for waiter in waiters.values { waiter.resume(returning: result) }
    }
}

