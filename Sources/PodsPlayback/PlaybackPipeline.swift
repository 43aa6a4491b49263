internal import CGStreamer
import PodsLoudness

/// A GStreamer element that crosses to the pipeline's worker thread.
struct ElementHandle: @unchecked Sendable {
    // @unchecked Sendable, proven: the element is a GstObject whose reference
    // counting, properties, state changes and seeks GStreamer documents as MT
    // safe, and it is changed only on its pipeline's worker, one operation
    // at a time; the pipeline holds its reference until the teardown, the
    // last operation on that worker.
    let element: UnsafeMutablePointer<GstElement>
}

/// One `playbin` and the threads that serve it: its bus reader, its worker
/// (state changes and seeks) and its source setup.
///
/// The engine keeps what outlives a pipeline (the source, the rate, the
/// load generation); when a pipeline stalls it is abandoned (its threads
/// left where they are stuck, its teardown queued behind them) and the
/// engine builds another.
final class PlaybackPipeline {
    let playbin: ElementHandle
    let positionReader: PositionReader
    let worker: PipelineWorker
    let sourceSetup = SourceSetup()
    let busReader: PipelineBusReader
    /// The `level` meter in the audio filter, for silence detection.
    private let level: ElementHandle?
    /// The audio filter (`level ! scaletempo`, levelled between), owned by playbin.
    private let audioFilter: ElementHandle?
    private var isAbandoned = false
    /// The levelling probe's hold on the engine's one stage, let go when the pipeline is abandoned.
    private var levellingProbe: LevellingProbe.Detachment?

    /// The time-stretch element's name in the audio filter.
    private static let timeStretchName = "pods-tempo"

    /// Builds a playbin that plays into `audioSink` (a floating element, now
    /// the pipeline's) and reads its bus into `continuation`.
    init(audioSink: UnsafeMutablePointer<GstElement>, levelling: LevellingStage, continuation: AsyncStream<PipelineMessage>.Continuation,
         explainNetworkFailure: (@Sendable (String) -> PlaybackError?)?, stallLimit: Duration,
         onStall: @escaping @Sendable () -> Void) throws(PlaybackError) {
        guard let playbin = gst_element_factory_make("playbin", "pods-player") else {
            _ = gst_object_ref_sink(audioSink)
            gst_object_unref(audioSink)
            throw PlaybackError(.setup, "GStreamer has no playbin element (install gstreamer1.0-plugins-base)")
        }
        // gst_element_factory_make returns a floating reference; own it.
        _ = gst_object_ref_sink(playbin)
        self.playbin = ElementHandle(element: playbin)
        positionReader = PositionReader(playbin)
        // Audio only, software volume: no video or subtitle decoding.
        let audioFlag: UInt32 = 0x2, softVolumeFlag: UInt32 = 0x10
        pods_object_set_uint(playbin, "flags", audioFlag | softVolumeFlag)
        pods_object_set_object(playbin, "audio-sink", audioSink)
        // The flags do not stop playbin from looking for a video sink when a stream typefinds as
        // video: an "mp3" whose frames name the reserved sample rate reads as MPEG-4 video, and
        // playbin then tried every video sink the machine has; DirectFB's killed podsd (and put its
        // own handler in front of the crash guard's). Sinks that take and drop anything, made here,
        // leave no video or text element to look for.
        for property in ["video-sink", "text-sink"] {
            if let sink = gst_element_factory_make("fakesink", nil) { pods_object_set_object(playbin, property, sink) }
        }
        // A level meter (silent until silence detection is on) ahead of scaletempo.
        if let filter = gst_parse_bin_from_description(
            "level name=pods-level interval=50000000 post-messages=false ! scaletempo name=\(Self.timeStretchName)", 1, nil) {
            pods_object_set_object(playbin, "audio-filter", filter)
            level = gst_bin_get_by_name(UnsafeMutableRawPointer(filter).assumingMemoryBound(to: GstBin.self), "pods-level")
                .map(ElementHandle.init)
            // Loudness levelled after the meter, before the speed changes (`LevellingProbe`).
            if let level, let pad = gst_element_get_static_pad(level.element, "src") {
                levellingProbe = LevellingProbe.install(on: pad, stage: levelling)
                gst_object_unref(pad)
            }
            audioFilter = ElementHandle(element: filter)
        } else {
            level = nil
            audioFilter = nil
        }
        // Which output the sink plays on, as it changes (pulsesink's current-device): the bus says.
        _ = gst_element_add_property_deep_notify_watch(playbin, "current-device", 1)
        worker = PipelineWorker(stallLimit: stallLimit, onStall: onStall)
        sourceSetup.connect(to: playbin)
        busReader = PipelineBusReader(pipeline: playbin, continuation: continuation, explainNetworkFailure: explainNetworkFailure)
        busReader.start()
    }

    /// Tears the pipeline down on its worker, after whatever it still runs:
    /// never on the caller's thread, which a stalled pipeline would hold.
    deinit {
        let playbin = playbin, level = level, busReader = busReader, setup = sourceSetup, abandoned = isAbandoned
        setup.stopFeeding()
        worker.post {
            gst_element_set_state(playbin.element, GST_STATE_NULL)
            if !abandoned { busReader.stop() }
            if let level { gst_object_unref(level.element) }
            gst_object_unref(playbin.element)
        }
    }

    /// Leaves the pipeline to its stuck threads: the bus reader ends without
    /// ending the engine's events, nothing more is asked of the pipeline.
    func abandon() {
        isAbandoned = true
        levellingProbe?.detach()
        sourceSetup.stopFeeding()
        busReader.stop(endingEvents: false)
    }

    /// Releases the pipeline and ends the engine's events; waits for that
    /// at most `answerLimit` (a stalled pipeline is left as it is).
    func shutdown() {
        sourceSetup.stopFeeding()
        let playbin = playbin, busReader = busReader
        worker.run {
            gst_element_set_state(playbin.element, GST_STATE_NULL)
        }
        busReader.stop()
    }

    /// Puts a new `scaletempo` in the filter; call on the worker before the
    /// pipeline leaves READY (it must not be flowing). A `scaletempo` that has
    /// been stopped keeps its queue's fill count after freeing the queue,
    /// and the next stream in a format that needs a smaller queue makes it
    /// copy from the freed one: podsd died switching formats at any rate but
    /// 1× (`pods_bin_renew_element` in CGStreamer says where).
    static func renewTimeStretch(in audioFilter: ElementHandle?) {
        guard let audioFilter else { return }
        _ = pods_bin_renew_element(UnsafeMutableRawPointer(audioFilter.element).assumingMemoryBound(to: GstBin.self),
                                   timeStretchName)
    }

    /// The audio filter, for `renewTimeStretch`.
    var filter: ElementHandle? { audioFilter }

    /// Turns the level meter's messages on or off.
    func setSilenceDetection(_ on: Bool) {
        guard let level else { return }
        pods_object_set_int(level.element, "post-messages", on ? 1 : 0)
    }
}

@available(*, unavailable)
extension PlaybackPipeline: Sendable {}
