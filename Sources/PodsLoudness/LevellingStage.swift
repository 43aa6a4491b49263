import Foundation
import Synchronization

/// Loudness levelling in the stream: each stretch of samples is measured,
/// then multiplied by the leveller's gain, in place, on the thread that
/// streams it; the player sets what to aim at from its own.
///
/// Off (no target), it neither measures nor touches a sample.
public final class LevellingStage: Sendable {
    private struct State {
        var target: Double?
        var measurement: LoudnessMeasurement?
        var rate = 1.0
        var channels = 0
        var sampleRate = 0
        var meter: LoudnessMeter?
        var leveller = LoudnessLeveller(target: -16)
        /// The gain applied at the end of the last stretch, dB.
        var applied = 0.0
    }

    private let state = Mutex(State())

    public init() {}

    /// Levels toward `target` LUFS (nil: off), straight to `measurement`'s
    /// gain when the whole file's loudness is known.
    public func configure(target: Double?, measurement: LoudnessMeasurement?) {
        state.withLock { state in
            if target != nil && state.target == nil { state.meter = nil }  // measures from here on
            state.target = target
            state.measurement = measurement
            state.leveller.target = target ?? state.leveller.target
            state.leveller.measurement = measurement
        }
    }

    /// The rate the stream is heard at.
    public func setRate(_ rate: Double) {
        guard rate.isFinite, rate > 0 else { return }
        state.withLock { $0.rate = rate }
    }

    /// A new stream (an episode): measured from nothing, the gain from none
    /// (or the file's measurement).
    public func streamStarted() {
        state.withLock { state in
            state.meter = nil
            state.leveller.restart()
            state.applied = state.leveller.gain
        }
    }

    /// The stream's shape (channels, samples per second); a change measures it anew.
    public func setFormat(channels: Int, sampleRate: Int) {
        state.withLock { state in
            guard channels != state.channels || sampleRate != state.sampleRate else { return }
            state.channels = channels
            state.sampleRate = sampleRate
            state.meter = nil
        }
    }

    /// The gain applied now, dB; nil while off.
    public var gain: Double? {
        state.withLock { $0.target == nil ? nil : $0.applied }
    }

    /// Measures `samples` (interleaved 16-bit) and levels them in place.
    public func process(_ samples: UnsafeMutableBufferPointer<Int16>) {
        guard let gains = level(count: samples.count, measure: { $0.add(UnsafeBufferPointer(samples)) }) else { return }
        Self.scale(samples, gains) { sample, factor in
            Int16(clamping: Int((Double(sample) * factor).rounded()))
        }
    }

    /// Measures `samples` (interleaved 32-bit float) and levels them in place.
    public func process(_ samples: UnsafeMutableBufferPointer<Float>) {
        guard let gains = level(count: samples.count, measure: { $0.add(UnsafeBufferPointer(samples)) }) else { return }
        Self.scale(samples, gains) { sample, factor in sample * Float(factor) }
    }

    /// Measures `samples` (interleaved 64-bit float) and levels them in place.
    public func process(_ samples: UnsafeMutableBufferPointer<Double>) {
        guard let gains = level(count: samples.count, measure: { $0.add(UnsafeBufferPointer(samples)) }) else { return }
        Self.scale(samples, gains) { sample, factor in sample * factor }
    }

    /// The gain across one stretch: from the first frame's to the last's, dB.
    private struct Gains {
        var from: Double
        var to: Double
        var channels: Int
    }

    /// Measures a stretch of `count` samples; the gains to apply, nil for none.
    private func level(count: Int, measure: (LoudnessMeter) -> Void) -> Gains? {
        let gains: Gains? = state.withLock { state in
            guard state.target != nil else { return nil }
            if state.meter == nil { state.meter = LoudnessMeter(channels: state.channels, sampleRate: state.sampleRate) }
            guard let meter = state.meter else { return nil }
            let frames = count / meter.channels
            guard frames > 0 else { return nil }
            measure(meter)
            let from = state.applied
            let to = state.leveller.next(duration: Double(frames) / Double(meter.sampleRate), rate: state.rate,
                                         measured: meter.integrated, seconds: meter.seconds, peak: meter.lastTruePeak)
            state.applied = to
            // A peak's reduction applies from the stretch's start; a rise is spread over it.
            return Gains(from: to < from && state.leveller.reduction < 0 ? to : from, to: to, channels: meter.channels)
        }
        guard let gains, gains.from != 0 || gains.to != 0 else { return nil }
        return gains
    }

    /// Multiplies each frame by a gain moving straight across the stretch.
    private static func scale<Sample>(_ samples: UnsafeMutableBufferPointer<Sample>, _ gains: Gains,
                                      _ multiply: (Sample, Double) -> Sample) {
        let channels = gains.channels, frames = samples.count / channels
        let first = pow(10, gains.from / 20), last = pow(10, gains.to / 20)
        let step = (last - first) / Double(frames)
        var factor = first
        for frame in 0..<frames {
            factor += step
            let base = frame * channels
            for channel in 0..<channels { samples[base + channel] = multiply(samples[base + channel], factor) }
        }
    }
}
