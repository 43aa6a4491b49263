import Foundation
internal import CGStreamer
import PodsLoudness

/// One `playbin` pipeline: load, play, pause, stop, seek, rate, volume.
///
/// Confined to its owner (the player controller's actor): every call comes
/// from there, and the bus thread only forwards `events`. The owner passes
/// each event back through `handle(_:)` so that seeks asked for before the
/// pipeline was ready take effect when it is.
public final class PlaybackEngine {
    /// Bus messages, translated; pass each to `handle(_:)`. Ends after `shutdown()`.
    public let events: AsyncStream<PipelineMessage>
    /// The loaded source, if any (kept through `stop()`).
    public private(set) var source: MediaSource?
    /// Playback speed; pitch is kept by `scaletempo`.
    public private(set) var rate: Double = 1
    /// Linear volume, 0 = silent, 1 = unchanged.
    public private(set) var volume: Double = 1
    /// How much faster than `rate` the pipeline plays (silence being trimmed).
    public private(set) var rateBoost: Double = 1

    /// The pipeline; replaced when one stalls (`PipelineWorker`).
    private(set) var pipeline: PlaybackPipeline
    /// How many pipelines stalled and were replaced.
    public private(set) var replacedPipelines = 0
    /// The pipeline's position for other threads (see `PositionReader`).
    public var positionReader: PositionReader { pipeline.positionReader }
    private let continuation: AsyncStream<PipelineMessage>.Continuation
    private let explainNetworkFailure: (@Sendable (String) -> PlaybackError?)?
    private let stallLimit: Duration
    /// The sink the next pipeline plays into.
    private var audioSink: String
    /// A sink to put in at the next load (the pipeline is busy with a source now).
    private var pendingSink: ElementHandle?
    private var silenceDetection = false
    /// Loudness levelling, in whichever pipeline plays.
    private let levelling = LevellingStage()
    /// The state last asked of the pipeline (it may still be on its way there).
    private var requestedState = GST_STATE_NULL
    /// A seek to do once the pipeline has prerolled.
    private var deferredSeek: Duration?
    /// A seek under way: reported as the position until it completes.
    private var seekInFlight: Duration?
    /// Where a load starts, reported as the position until it prerolls:
    /// until the worker has torn the old source down, the pipeline still
    /// answers with the old source's place (a new episode said it was at
    /// the last one's 0:19 as it loaded).
    private var loadingFrom: Duration?
    /// The last position read or sought in this source: where a re-seek
    /// (a new rate) goes when the pipeline cannot say, as its position query
    /// can fail right at ASYNC_DONE. (`?? .zero` there once sent a listener
    /// who had moved to 0:30 and changed speed back to the start.)
    private var lastKnownPosition: Duration = .zero
    /// Seeks asked for, and the one taken as under way without the pipeline
    /// having said so yet (the worker was late): a refusal of it undoes it.
    private var seeks = 0
    private var unconfirmedSeek: Int?
    /// The segment starts at rate 1 after every preroll; this says to seek
    /// with the current rate at the next `asyncDone`.
    private var segmentNeedsRate = false
    private var isPrerolled = false
    /// Bumped by every load, once the previous source is torn down, so
    /// events that source posted are dropped.
    private var generation: UInt64 = 0
    /// The generation whose source already failed: the first error says why
    /// (the elements downstream of a failed source post errors of their own,
    /// "Stream doesn't contain enough data", after it), the rest are dropped.
    private var failedGeneration: UInt64?

    /// The range `setRate` accepts.
    public static let rateRange: ClosedRange<Double> = 0.5...3.0
    /// The range `setVolume` accepts.
    public static let volumeRange: ClosedRange<Double> = 0...2

    /// Builds the pipeline.
    ///
    /// - Parameter audioSink: a `gst-launch` description such as
    ///   `"fakesink sync=true"`; nil for `autoaudiosink`.
    /// `explainNetworkFailure(uri)` is asked, on the bus thread, why a
    /// network stream failed (nil: it cannot tell, and GStreamer's message
    /// stands): pipelines say it differently with each plugin set.
    /// An operation the pipeline has not finished after `stallLimit` loses
    /// it: the engine builds another and reports an error.
    public init(audioSink: String? = nil, stallLimit: Duration = .seconds(10),
                explainNetworkFailure: (@Sendable (String) -> PlaybackError?)? = nil) throws(PlaybackError) {
        Self.ensureGStreamer()
        let (stream, continuation) = AsyncStream<PipelineMessage>.makeStream()
        events = stream
        self.continuation = continuation
        self.explainNetworkFailure = explainNetworkFailure
        self.stallLimit = stallLimit
        self.audioSink = audioSink ?? "autoaudiosink"
        pipeline = try Self.makePipeline(audioSink: self.audioSink, number: 0, levelling: levelling, continuation: continuation,
                                         explainNetworkFailure: explainNetworkFailure, stallLimit: stallLimit)
    }

    deinit {
        if let pendingSink { gst_object_unref(pendingSink.element) }
    }

    private static func makePipeline(audioSink: String, number: Int, levelling: LevellingStage,
                                     continuation: AsyncStream<PipelineMessage>.Continuation,
                                     explainNetworkFailure: (@Sendable (String) -> PlaybackError?)?,
                                     stallLimit: Duration) throws(PlaybackError) -> PlaybackPipeline {
        try PlaybackPipeline(audioSink: makeAudioSink(audioSink), levelling: levelling, continuation: continuation,
                             explainNetworkFailure: explainNetworkFailure, stallLimit: stallLimit) {
            continuation.yield(PipelineMessage(.stalled(pipeline: number), generation: -1))
        }
    }

    /// Leaves a stalled pipeline to its stuck threads and builds another
    /// with the same sink, volume and source (stopped). When none can be
    /// built the stalled one stays, and every later call is queued behind
    /// it without holding the caller. (Internal: a test abandons a pipeline
    /// that still flows, as a stuck one's thread may again.)
    func replacePipeline() throws(PlaybackError) {
        let fresh = try Self.makePipeline(audioSink: audioSink, number: replacedPipelines + 1, levelling: levelling,
                                          continuation: continuation,
                                          explainNetworkFailure: explainNetworkFailure, stallLimit: stallLimit)
        pipeline.abandon()
        if let pendingSink { gst_object_unref(pendingSink.element) }
        pendingSink = nil
        replacedPipelines += 1
        pipeline = fresh
        generation &+= 1
        requestedState = GST_STATE_NULL
        isPrerolled = false
        deferredSeek = nil
        loadingFrom = nil
        seekInFlight = nil
        unconfirmedSeek = nil
        let playbin = fresh.playbin, busReader = fresh.busReader, setup = fresh.sourceSetup
        let generation = generation, volume = volume, media = source?.media
        let uri = source.map { $0.media == nil ? $0.uri : "appsrc://" }
        fresh.setSilenceDetection(silenceDetection)
        fresh.worker.run {
            busReader.setGeneration(generation)
            pods_object_set_double(playbin.element, "volume", volume)
            setup.media = media
            if let uri { pods_object_set_string(playbin.element, "uri", uri) }
        }
    }

    private static let gstreamerReady: Void = {
        gst_init(nil, nil)
        preferDecoder("mpg123audiodec")
    }()

    /// Ranks `name` above other decoders of its format. `mpg123audiodec`
    /// ties with `avdec_mp3` at marginal rank and loses on name order, and
    /// `avdec_mp3` drags in all of libav (libavfilter and its dependencies,
    /// over 30 MiB resident) for what mpg123 decodes alone.
    private static func preferDecoder(_ name: String) {
        guard let feature = gst_registry_lookup_feature(gst_registry_get(), name) else { return }
        gst_plugin_feature_set_rank(feature, UInt32(GST_RANK_PRIMARY.rawValue) + 1)
        gst_object_unref(UnsafeMutableRawPointer(feature))
    }

    static func ensureGStreamer() { _ = gstreamerReady }

    /// Plays through `description` (a `gst-launch` sink description, nil for
    /// `autoaudiosink`) from the next `load` on; an error leaves the sink as it was.
    public func setAudioSink(_ description: String?) throws(PlaybackError) {
        let sink = try Self.makeAudioSink(description ?? "autoaudiosink")
        _ = gst_object_ref_sink(sink)  // owned until handed to playbin at the next load
        if let pendingSink { gst_object_unref(pendingSink.element) }
        pendingSink = ElementHandle(element: sink)
        audioSink = description ?? "autoaudiosink"
    }

    /// Checks that `audioSink` (a `gst-launch` description, nil for
    /// `autoaudiosink`) makes an element, without building a pipeline.
    public static func checkAudioSink(_ audioSink: String?) throws(PlaybackError) {
        ensureGStreamer()
        let sink = try makeAudioSink(audioSink ?? "autoaudiosink")
        _ = gst_object_ref_sink(sink)  // own the floating reference before dropping it
        gst_object_unref(sink)
    }

    /// Checks an `audio-sink` that came over the bus, where any client may
    /// write it: one audio sink element by its factory name, and for the
    /// sinks that have one a `device` ("pulsesink",
    /// "alsasink device=hw:1,0"). A `gst-launch` description can run any
    /// element (`filesrc location=~/.ssh/… ! filesink …` copies a file), so
    /// anything more stays where only the user writes: the config file and
    /// `--audio-sink`.
    /// A device names a device, never a file (`busDeviceIsAllowed`).
    public static func checkBusAudioSink(_ text: String) throws(PlaybackError) {
        ensureGStreamer()
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        let nameCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-_")
        guard let name = words.first, (1...64).contains(name.count), name.allSatisfy(nameCharacters.contains) else {
            throw PlaybackError(.setup, "audio-sink over D-Bus takes an audio sink's name (such as pulsesink), not '\(text)'")
        }
        var device: Substring?
        if words.count == 2, words[1].hasPrefix("device=") {
            device = words[1].dropFirst("device=".count)
        }
        guard words.count == 1 || device != nil else {
            throw PlaybackError(.setup, "audio-sink over D-Bus takes a sink's name and at most a device=…; "
                                + "a longer description belongs in config.toml or --audio-sink")
        }
        if let device, !busDeviceIsAllowed(String(device)) {
            throw PlaybackError(.setup, "audio-sink over D-Bus takes a device by its name (such as hw:1,0, "
                                + "plughw:CARD=PCH or a sound server's sink name), not '\(device.prefix(80))'; "
                                + "a path or an ALSA plugin belongs in config.toml or --audio-sink")
        }
        guard let factory = gst_element_factory_find(String(name)) else {
            throw PlaybackError(.setup, "audio sink '\(name)': GStreamer has no such element")
        }
        defer { gst_object_unref(UnsafeMutableRawPointer(factory)) }
        let klass = gst_element_factory_get_metadata(factory, "klass").map { String(cString: $0) } ?? ""
        let kinds = klass.split(separator: "/")
        guard kinds.contains("Sink"), kinds.contains("Audio") else {
            throw PlaybackError(.setup, "'\(name)' is not an audio sink (\(klass))")
        }
        if device != nil {
            guard let element = gst_element_factory_create(factory, nil) else {
                throw PlaybackError(.setup, "audio sink '\(name)' could not be made")
            }
            _ = gst_object_ref_sink(element)
            defer { gst_object_unref(element) }
            guard pods_object_has_property(element, "device") != 0 else {
                throw PlaybackError(.setup, "audio sink '\(name)' has no device to choose")
            }
        }
    }

    /// ALSA's PCM kinds that name a card and nothing else: after one of these
    /// and a colon come only the card's arguments (`hw:1,0`, `plughw:CARD=PCH,DEV=0`).
    static let alsaCardPCMs: Set<String> = [
        "default", "sysdefault", "hw", "plughw", "front", "rear", "center_lfe", "side", "surround21", "surround40",
        "surround41", "surround50", "surround51", "surround71", "iec958", "spdif", "hdmi", "dmix", "usbstream",
    ]

    /// Whether a client on the bus may choose `device`: a device's name, or an
    /// ALSA card PCM with its arguments. Never a path (`/`), and never another
    /// ALSA PCM: the stock `alsa.conf` defines `file:PATH` and `tee:PATH`,
    /// which truncate and write the file they name (relative to podsd's
    /// directory without a `/`), and `plug:` or others can nest them.
    public static func busDeviceIsAllowed(_ device: String) -> Bool {
        let nameCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.@")
        let argumentCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.,=")
        guard (1...256).contains(device.count) else { return false }
        let parts = device.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = parts.first, !name.isEmpty, name.allSatisfy(nameCharacters.contains) else { return false }
        guard parts.count == 2 else {
            // A bare name: a sound server's sink, or an ALSA PCM without arguments, but not one that writes files.
            return !["file", "tee"].contains(name.lowercased())
        }
        return alsaCardPCMs.contains(String(name)) && parts[1].allSatisfy(argumentCharacters.contains)
    }

    private static func makeAudioSink(_ description: String) throws(PlaybackError) -> UnsafeMutablePointer<GstElement> {
        var error: UnsafeMutablePointer<GError>?
        let bin = gst_parse_bin_from_description(description, 1, &error)
        if let error {
            let message = error.pointee.message.map { String(cString: $0) } ?? "invalid description"
            g_error_free(error)
            if let bin { gst_object_unref(bin) }
            throw PlaybackError(.setup, "audio sink '\(description)': \(message)")
        }
        guard let bin else { throw PlaybackError(.setup, "audio sink '\(description)' could not be made") }
        return bin
    }

    // MARK: - Transport

    /// Loads `source` paused at `start`; `events` reports `asyncDone` when it
    /// is ready or `error` when it cannot be played.
    public func load(_ source: MediaSource, startingAt start: Duration = .zero) {
        pipeline.sourceSetup.stopFeeding()
        generation &+= 1
        self.source = source
        isPrerolled = false
        segmentNeedsRate = true
        deferredSeek = start > .zero ? start : nil
        loadingFrom = max(start, .zero)
        lastKnownPosition = max(start, .zero)
        seekInFlight = nil
        unconfirmedSeek = nil
        requestedState = GST_STATE_PAUSED
        let sink = pendingSink
        pendingSink = nil
        let playbin = pipeline.playbin, filter = pipeline.filter, busReader = pipeline.busReader, setup = pipeline.sourceSetup
        let generation = generation, media = source.media, uri = source.media == nil ? source.uri : "appsrc://"
        pipeline.worker.run {
            gst_element_set_state(playbin.element, GST_STATE_NULL)  // the old source's last messages are posted by now
            if let sink {
                pods_object_set_object(playbin.element, "audio-sink", sink.element)
                gst_object_unref(sink.element)
            }
            PlaybackPipeline.renewTimeStretch(in: filter)
            busReader.setGeneration(generation)
            setup.media = media
            pods_object_set_string(playbin.element, "uri", uri)
            gst_element_set_state(playbin.element, GST_STATE_PAUSED)
        }
    }

    /// Plays from the current position (from the start after `stop()`).
    public func play() {
        guard source != nil else { return }
        prepareIfStopped()
        setState(GST_STATE_PLAYING)
    }

    public func pause() {
        guard source != nil else { return }
        prepareIfStopped()
        setState(GST_STATE_PAUSED)
    }

    /// Stops and rewinds; the source stays loaded and the audio device is released.
    public func stop() {
        guard source != nil else { return }
        pipeline.sourceSetup.stopFeeding()
        setState(GST_STATE_READY)
        isPrerolled = false
        deferredSeek = nil
        loadingFrom = nil
        seekInFlight = nil
        unconfirmedSeek = nil
        lastKnownPosition = .zero
    }

    /// Drops the source.
    public func unload() {
        pipeline.sourceSetup.stopFeeding()
        let setup = pipeline.sourceSetup
        setState(GST_STATE_NULL) { setup.media = nil }
        source = nil
        isPrerolled = false
        deferredSeek = nil
        loadingFrom = nil
        seekInFlight = nil
        unconfirmedSeek = nil
        lastKnownPosition = .zero
    }

    /// Asks the pipeline for `state` on its worker, then runs `after` there.
    private func setState(_ state: GstState, then after: (@Sendable () -> Void)? = nil) {
        requestedState = state
        let playbin = pipeline.playbin
        pipeline.worker.run {
            gst_element_set_state(playbin.element, state)
            after?()
        }
    }

    /// Whether the pipeline is (or is going) below PAUSED.
    private var isStopped: Bool { requestedState.rawValue <= GST_STATE_READY.rawValue }

    private func prepareIfStopped() {
        guard isStopped else { return }
        let filter = pipeline.filter
        pipeline.worker.run { PlaybackPipeline.renewTimeStretch(in: filter) }
        isPrerolled = false
        segmentNeedsRate = true
        failedGeneration = nil  // a new try of the same source may fail again, and must say so
    }

    // MARK: - Position

    /// Seeks accurately to `position`; before the pipeline has prerolled the
    /// seek waits for it.
    public func seek(to position: Duration) {
        guard source != nil else { return }
        let target = max(position, .zero)
        if !isPrerolled || isStopped {
            if isStopped {
                prepareIfStopped()
                setState(GST_STATE_PAUSED)
            }
            deferredSeek = target
            return
        }
        performSeek(to: target)
    }

    /// `rate` within `rateRange`.
    public static func clampedRate(_ rate: Double) -> Double {
        min(max(rate, rateRange.lowerBound), rateRange.upperBound)
    }

    /// `volume` within `volumeRange`.
    public static func clampedVolume(_ volume: Double) -> Double {
        min(max(volume, volumeRange.lowerBound), volumeRange.upperBound)
    }

    /// Sets the speed (clamped to `rateRange`) without changing pitch.
    public func setRate(_ newRate: Double) {
        rate = Self.clampedRate(newRate)
        levelling.setRate(rate * rateBoost)
        guard source != nil else { return }
        if isPrerolled, !isStopped {
            performSeek(to: currentPosition)
        } else {
            segmentNeedsRate = true
        }
    }

    /// Plays `factor` times faster than `rate` (for silence being trimmed),
    /// pitch kept, positions still in the media's own time; 1 ends it.
    public func setRateBoost(_ factor: Double) {
        guard factor.isFinite, factor >= 1, factor != rateBoost else { return }
        rateBoost = factor
        levelling.setRate(rate * rateBoost)
        guard source != nil, isPrerolled, !isStopped else { return }
        performSeek(to: currentPosition)
    }

    /// Ends a boost without a seek of its own, for a caller about to seek
    /// (which applies the plain rate).
    public func clearRateBoost() {
        rateBoost = 1
        levelling.setRate(rate)
    }

    /// Levels loudness toward `target` LUFS (nil: off, the samples
    /// untouched), at once to `measurement`'s gain when the loaded file's
    /// loudness is known; positions and speed are unchanged by it.
    public func setLoudness(target: Double?, measurement: LoudnessMeasurement?) {
        levelling.configure(target: target, measurement: measurement)
    }

    /// The levelling gain applied now, dB; nil while levelling is off.
    public var loudnessGain: Double? { levelling.gain }

    /// Turns the level meter's messages (`PlaybackEvent.level`) on or off.
    public func setSilenceDetection(_ on: Bool) {
        silenceDetection = on
        pipeline.setSilenceDetection(on)
    }

    /// Sets the volume, clamped to `volumeRange`.
    public func setVolume(_ newVolume: Double) {
        volume = Self.clampedVolume(newVolume)
        pods_object_set_double(pipeline.playbin.element, "volume", volume)
    }

    /// The pipeline's position, or nil when it has none (stopped, loading).
    public func position() -> Duration? {
        if let target = deferredSeek ?? seekInFlight ?? loadingFrom { return target }
        let read = positionReader.position()
        if let read { lastKnownPosition = read }
        return read
    }

    /// The position, else the last one read or sought (a pipeline changing
    /// state, or flushing, cannot always say).
    public var currentPosition: Duration { position() ?? lastKnownPosition }

    /// The media's duration, once known.
    public func duration() -> Duration? {
        var nanoseconds: gint64 = 0
        guard gst_element_query_duration(pipeline.playbin.element, GST_FORMAT_TIME, &nanoseconds) != 0, nanoseconds > 0 else {
            return nil
        }
        return .nanoseconds(Int64(nanoseconds))
    }

    /// How many audio streams the loaded media has (0 for a file that
    /// prerolled without any, such as a script or an image).
    public func audioStreamCount() -> Int {
        Int(pods_object_get_int(pipeline.playbin.element, "n-audio"))
    }

    /// Whether the pipeline can seek in the loaded media.
    public func isSeekable() -> Bool {
        guard let query = gst_query_new_seeking(GST_FORMAT_TIME) else { return false }
        defer { gst_query_unref(query) }
        guard gst_element_query(pipeline.playbin.element, query) != 0 else { return false }
        var seekable: gboolean = 0
        gst_query_parse_seeking(query, nil, &seekable, nil, nil)
        return seekable != 0
    }

    private func performSeek(to target: Duration) {
        let (whole, overflow) = target.components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let nanoseconds = overflow ? gint64.max : gint64(whole + target.components.attoseconds / 1_000_000_000)
        let flags = GstSeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_ACCURATE.rawValue)
        segmentNeedsRate = false
        seeks += 1
        let playbin = pipeline.playbin, speed = rate * rateBoost, continuation = continuation
        let number = seeks, stamp = Int32(truncatingIfNeeded: generation)
        let accepted = pipeline.worker.run { () -> Bool in
            let accepted = gst_element_seek(playbin.element, speed, GST_FORMAT_TIME, flags, GST_SEEK_TYPE_SET, nanoseconds,
                                            GST_SEEK_TYPE_NONE, -1) != 0
            if !accepted { continuation.yield(PipelineMessage(.seekRefused(number), generation: stamp)) }
            return accepted
        }
        guard accepted != false else { return }
        seekInFlight = target
        lastKnownPosition = target
        isPrerolled = false
        unconfirmedSeek = accepted == nil ? number : nil
    }

    // MARK: - Events

    /// Applies what waited for the pipeline; call with every message from
    /// `events` and act on the event it returns (nil for a message that
    /// belonged to an earlier source).
    public func handle(_ message: PipelineMessage) -> PlaybackEvent? {
        let event: PlaybackEvent
        switch message.content {
        case .stalled(let number):
            guard number == replacedPipelines else { return nil }  // one the engine gave up already
            let stuck = "The stream stopped the player: GStreamer did not finish a state change in \(stallLimit.components.seconds) s"
            do throws(PlaybackError) {
                try replacePipeline()
                return .error(PlaybackError(.other, stuck + ", so the pipeline was replaced"))
            } catch {
                return .error(PlaybackError(.setup, stuck + ", and no new pipeline could be built (\(error.message)); restart podsd"))
            }
        case .seekRefused(let number):
            guard message.generation == Int32(truncatingIfNeeded: generation), number == unconfirmedSeek else { return nil }
            unconfirmedSeek = nil
            seekInFlight = nil
            loadingFrom = nil
            isPrerolled = true
            return nil
        case .event(let pipelineEvent):
            guard message.generation == Int32(truncatingIfNeeded: generation) else { return nil }
            event = pipelineEvent
        }
        switch event {
        case .asyncDone:
            isPrerolled = true
            // Where a seek just landed: a rate set while it was in flight is applied from there.
            let landed = seekInFlight
            seekInFlight = nil
            unconfirmedSeek = nil
            let waiting = deferredSeek
            deferredSeek = nil
            loadingFrom = nil
            if let waiting {
                performSeek(to: waiting)
            } else if segmentNeedsRate && rate * rateBoost != 1 {
                performSeek(to: landed ?? currentPosition)
            }
            segmentNeedsRate = false
        case .error:
            guard failedGeneration != generation else { return nil }
            failedGeneration = generation
            pipeline.sourceSetup.stopFeeding()
            setState(GST_STATE_READY)
            isPrerolled = false
            deferredSeek = nil
            loadingFrom = nil
            seekInFlight = nil
            unconfirmedSeek = nil
        default:
            break
        }
        return event
    }

    /// Whether a seek or preroll is still under way.
    public var isSettling: Bool { deferredSeek != nil || seekInFlight != nil || !isPrerolled }

    /// Releases the pipeline and ends `events`.
    public func shutdown() {
        pipeline.shutdown()
    }
}

@available(*, unavailable)
extension PlaybackEngine: Sendable {}
