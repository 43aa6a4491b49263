internal import CGStreamer
import PodsLoudness
import Synchronization

/// Hands the audio filter's samples to a `LevellingStage` on GStreamer's
/// streaming thread: the stream's shape from its CAPS event, a new stream
/// at STREAM_START, each buffer measured and levelled in place.
///
/// It sits after the `level` meter (so trimmed silence hears the file as it
/// is) and before `scaletempo` (so the meter reads media time at any speed).
enum LevellingProbe {
    /// Adds the probe to `pad`; it holds `stage` until the pad goes, or
    /// until the `Detachment` it returns is told to let go.
    static func install(on pad: UnsafeMutablePointer<GstPad>, stage: LevellingStage) -> Detachment {
        let mask = GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue
        let detachment = Detachment()
        gst_pad_add_probe(pad, GstPadProbeType(rawValue: mask), probe, Unmanaged.passRetained(Box(stage, detachment)).toOpaque(), release)
        return detachment
    }

    /// Cuts a probe off its stage: an abandoned pipeline's stuck thread, should it ever move
    /// again, must not reset or skew the meter of the pipeline that replaced it (REVIEW-4, N15).
    final class Detachment: Sendable {
        private let cut = Atomic<Bool>(false)
        func detach() { cut.store(true, ordering: .releasing) }
        var isDetached: Bool { cut.load(ordering: .acquiring) }
    }

    /// The stage and the shape of the stream it is being given.
    private final class Box {
        // Touched only on the pad's streaming thread (one at a time); the stage locks its own state.
        let stage: LevellingStage
        let detachment: Detachment
        var bytesPerSample = 0
        init(_ stage: LevellingStage, _ detachment: Detachment) {
            self.stage = stage
            self.detachment = detachment
        }
    }

    private static let release: @convention(c) (gpointer?) -> Void = { pointer in
        guard let pointer else { return }
        Unmanaged<Box>.fromOpaque(pointer).release()
    }

    private static let probe: @convention(c) (UnsafeMutablePointer<GstPad>?, UnsafeMutablePointer<GstPadProbeInfo>?, gpointer?)
        -> GstPadProbeReturn = { _, info, pointer in
        guard let info, let pointer else { return GST_PAD_PROBE_OK }
        let box = Unmanaged<Box>.fromOpaque(pointer).takeUnretainedValue()
        guard !box.detachment.isDetached else { return GST_PAD_PROBE_OK }
        if info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0 {
            level(info, box)
            return GST_PAD_PROBE_OK
        }
        var channels: gint = 0, rate: gint = 0, bytes: gint = 0
        if pods_probe_audio_caps(info, &channels, &rate, &bytes) != 0 {
            box.bytesPerSample = Int(bytes)
            box.stage.setFormat(channels: Int(channels), sampleRate: Int(rate))
        } else if pods_probe_is_stream_start(info) != 0 {
            box.stage.streamStarted()
        }
        return GST_PAD_PROBE_OK
    }

    private static func level(_ info: UnsafeMutablePointer<GstPadProbeInfo>, _ box: Box) {
        guard box.bytesPerSample != 0, box.stage.gain != nil else { return }
        var map = GstMapInfo()
        guard let buffer = pods_probe_map_writable(info, &map) else { return }
        defer { gst_buffer_unmap(buffer, &map) }
        guard let data = map.data else { return }
        let raw = UnsafeMutableRawPointer(data)
        switch box.bytesPerSample {
        case 2: box.stage.process(UnsafeMutableBufferPointer(start: raw.assumingMemoryBound(to: Int16.self), count: Int(map.size) / 2))
        case 4: box.stage.process(UnsafeMutableBufferPointer(start: raw.assumingMemoryBound(to: Float.self), count: Int(map.size) / 4))
        default: box.stage.process(UnsafeMutableBufferPointer(start: raw.assumingMemoryBound(to: Double.self), count: Int(map.size) / 8))
        }
    }
}
