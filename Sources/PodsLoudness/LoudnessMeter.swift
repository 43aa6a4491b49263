internal import CEBUR128
import Foundation

/// An EBU R 128 meter over one stream of interleaved samples (libebur128):
/// its loudness so far (gated, as R 128 integrates it) and its true peak.
///
/// Not thread-safe: one thread feeds and reads it at a time (the leveller
/// keeps it behind its lock). Memory stays the same however long the
/// stream: the integrated loudness is kept as libebur128's histogram.
public final class LoudnessMeter {
    /// What a meter accepts; outside these a stream is not measured.
    public static let channelRange = 1...8
    public static let sampleRateRange = 8000...384_000

    private var state: UnsafeMutablePointer<ebur128_state>?
    public let channels: Int
    public let sampleRate: Int
    /// Frames added so far.
    public private(set) var frames = 0

    /// nil when the stream's shape is outside `channelRange` or
    /// `sampleRateRange`, or libebur128 cannot take it. `truePeak`: the
    /// true peak is read too (its 4× oversampling costs several times the
    /// loudness's own work); without it `truePeak` is nil.
    public init?(channels: Int, sampleRate: Int, truePeak: Bool = true) {
        guard Self.channelRange.contains(channels), Self.sampleRateRange.contains(sampleRate) else { return nil }
        let mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_HISTOGRAM.rawValue | (truePeak ? EBUR128_MODE_TRUE_PEAK.rawValue : 0))
        guard let state = ebur128_init(UInt32(channels), UInt(sampleRate), mode) else { return nil }
        self.state = state
        self.channels = channels
        self.sampleRate = sampleRate
    }

    deinit { ebur128_destroy(&state) }

    /// Seconds of the stream measured.
    public var seconds: Double { Double(frames) / Double(sampleRate) }

    /// Adds interleaved 16-bit samples.
    public func add(_ samples: UnsafeBufferPointer<Int16>) {
        let count = samples.count / channels
        guard count > 0, let base = samples.baseAddress else { return }
        if ebur128_add_frames_short(state, base, count) == 0 { frames += count }
    }

    /// Adds interleaved 32-bit float samples (a whole number of frames; a trailing part frame is left out).
    public func add(_ samples: UnsafeBufferPointer<Float>) {
        let count = samples.count / channels
        guard count > 0, let base = samples.baseAddress else { return }
        if ebur128_add_frames_float(state, base, count) == 0 { frames += count }
    }

    /// Adds interleaved 64-bit float samples.
    public func add(_ samples: UnsafeBufferPointer<Double>) {
        let count = samples.count / channels
        guard count > 0, let base = samples.baseAddress else { return }
        if ebur128_add_frames_double(state, base, count) == 0 { frames += count }
    }

    /// The integrated (gated) loudness so far, LUFS; nil while everything
    /// measured is silence or under 400 ms.
    public var integrated: Double? {
        var value = 0.0
        guard ebur128_loudness_global(state, &value) == 0, value.isFinite else { return nil }
        return value
    }

    /// The highest true peak so far over every channel, dBTP; nil before any sound.
    public var truePeak: Double? {
        var highest = 0.0
        for channel in 0..<channels {
            var value = 0.0
            if ebur128_true_peak(state, UInt32(channel), &value) == 0, value.isFinite { highest = max(highest, value) }
        }
        return highest > 0 ? 20 * log10(highest) : nil
    }
}
