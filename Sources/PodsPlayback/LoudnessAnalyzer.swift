internal import CGStreamer
import Foundation
import PodsLoudness

/// Measures a whole audio file's loudness (EBU R 128 integrated, and its
/// true peak) by decoding it as fast as it decodes, for a download whose
/// level is then known from its first second.
///
/// The file came from the internet, so podsd decodes it in a helper process
/// of its own (`runAsHelper`, as `ImageRenderer` does pictures), under
/// limits: a file that crashes or floods a decoder takes only that process.
public enum LoudnessAnalyzer {
    /// The first argument of the helper: `podsd --measure-loudness IN OUT`.
    public static let helperArgument = "--measure-loudness"
    /// CPU seconds the helper may spend (a 10-hour file decodes in about a minute).
    static let cpuLimit: rlim_t = 300

    /// The helper's whole life: limits, measure, the figures written to OUT
    /// as two numbers on one line; exit status 0 written, 1 not.
    public static func runAsHelper(_ arguments: [String]) -> Int32 {
        guard arguments.count == 2 else {
            FileHandle.standardError.write(Data("podsd \(helperArgument) INPUT OUTPUT\n".utf8))
            return 2
        }
        HelperLimits.apply(memoryBytes: 768 << 20, cpuSeconds: cpuLimit)
        _ = nice(10)  // behind playback, which shares the machine
        do {
            let measurement = try measure(arguments[0])
            let line = "\(measurement.integrated) \(measurement.truePeak)\n"
            guard FileManager.default.createFile(atPath: arguments[1], contents: Data(line.utf8)) else { return 1 }
            return 0
        } catch {
            FileHandle.standardError.write(Data("podsd: \(error.message)\n".utf8))
            return 1
        }
    }

    /// Reads what the helper wrote; nil for anything but two figures in range.
    public static func readResult(_ text: String) -> LoudnessMeasurement? {
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let integrated = Double(fields[0]), let peak = Double(fields[1]) else { return nil }
        return LoudnessMeasurement(checking: integrated, truePeak: peak)
    }

    /// Measures `input`, in this process.
    public static func measure(_ input: String) throws(PlaybackError) -> LoudnessMeasurement {
        gst_init(nil, nil)
        let description = "filesrc name=source ! decodebin name=decoder ! audioconvert "
            + "! audio/x-raw,format=F32LE,layout=interleaved ! fakesink name=sink sync=false"
        var error: UnsafeMutablePointer<GError>?
        let parsed = gst_parse_launch(description, &error)
        if let error {
            g_error_free(error)
            if let parsed { gst_object_unref(parsed) }
            throw PlaybackError(.setup, "audio cannot be measured here (is gstreamer1.0-plugins-base installed?)")
        }
        guard let pipeline = parsed else { throw PlaybackError(.setup, "audio cannot be measured here") }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(pipeline)
        }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let source = gst_bin_get_by_name(bin, "source"), let decoder = gst_bin_get_by_name(bin, "decoder"),
              let sink = gst_bin_get_by_name(bin, "sink") else {
            throw PlaybackError(.setup, "audio cannot be measured here")
        }
        defer { for element in [source, decoder, sink] { gst_object_unref(element) } }
        pods_object_set_string(source, "location", input)
        pods_decodebin_refuse_adaptive(decoder)
        let meter = MeasuringProbe()
        if let pad = gst_element_get_static_pad(sink, "sink") {
            meter.install(on: pad)
            gst_object_unref(pad)
        }
        guard gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE else {
            throw PlaybackError(.undecodable, "the file could not be read as audio")
        }
        let bus = gst_element_get_bus(pipeline)
        defer { gst_object_unref(bus) }
        let wanted = GstMessageType(rawValue: GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_EOS.rawValue)
        guard let message = gst_bus_timed_pop_filtered(bus, GstClockTime(cpuLimit) * 2_000_000_000, wanted) else {
            throw PlaybackError(.undecodable, "the file took too long to measure")
        }
        defer { gst_message_unref(message) }
        guard pods_message_type(message) == GST_MESSAGE_EOS else {
            throw PlaybackError(.undecodable, "the file could not be read as audio")
        }
        gst_element_set_state(pipeline, GST_STATE_NULL)  // the streaming thread is done with the meter
        guard let measurement = meter.measurement() else {
            throw PlaybackError(.undecodable, "the file has no sound to measure")
        }
        return measurement
    }
}

/// Feeds a sink pad's samples to a `LoudnessMeter` (its shape from CAPS).
private final class MeasuringProbe {
    // Written on the pad's streaming thread only, read after the pipeline
    // has stopped: never two threads at once.
    private var meter: LoudnessMeter?

    func install(on pad: UnsafeMutablePointer<GstPad>) {
        let mask = GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue
        gst_pad_add_probe(pad, GstPadProbeType(rawValue: mask), Self.probe, Unmanaged.passRetained(self).toOpaque(), Self.release)
    }

    func measurement() -> LoudnessMeasurement? {
        guard let meter, meter.seconds > 0, let integrated = meter.integrated, let peak = meter.truePeak else { return nil }
        return LoudnessMeasurement(checking: integrated, truePeak: peak)
    }

    private static let release: @convention(c) (gpointer?) -> Void = { pointer in
        guard let pointer else { return }
        Unmanaged<MeasuringProbe>.fromOpaque(pointer).release()
    }

    private static let probe: @convention(c) (UnsafeMutablePointer<GstPad>?, UnsafeMutablePointer<GstPadProbeInfo>?, gpointer?)
        -> GstPadProbeReturn = { _, info, pointer in
        guard let info, let pointer else { return GST_PAD_PROBE_OK }
        let probe = Unmanaged<MeasuringProbe>.fromOpaque(pointer).takeUnretainedValue()
        var channels: gint = 0, rate: gint = 0, bytes: gint = 0
        if info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0 {
            guard let meter = probe.meter, let buffer = pods_probe_buffer(info) else { return GST_PAD_PROBE_OK }
            var map = GstMapInfo()
            guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return GST_PAD_PROBE_OK }
            defer { gst_buffer_unmap(buffer, &map) }
            if let data = map.data {
                meter.add(UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: Float.self), count: Int(map.size) / 4))
            }
        } else if pods_probe_audio_caps(info, &channels, &rate, &bytes) != 0, bytes == 4, probe.meter == nil {
            probe.meter = LoudnessMeter(channels: Int(channels), sampleRate: Int(rate))
        }
        return GST_PAD_PROBE_OK
    }
}
