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
        /// The loudness so far (no true peak: see `level`).
        var meter: LoudnessMeter?
        /// Frames of this stream levelled so far.
        var frames = 0
        /// The meter's integrated loudness, as last read (reading it walks its histogram).
        var measured: Double?
        /// The meter's seconds when it was last read.
        var measuredAt = -1.0
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
            if target != nil && state.target == nil {  // measures from here on
                state.meter = nil
                state.measured = nil
                state.measuredAt = -1
            }
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
            state.frames = 0
            state.measured = nil
            state.measuredAt = -1
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
            state.measured = nil
            state.measuredAt = -1
        }
    }

    /// The gain applied now, dB; nil while off.
    public var gain: Double? {
        state.withLock { $0.target == nil ? nil : $0.applied }
    }

    /// Measures `samples` (interleaved 16-bit) and levels them in place.
    public func process(_ samples: UnsafeMutableBufferPointer<Int16>) {
        let samplePeak = Float(Int16Samples.peak(samples)) / 32768
        guard let gains = level(count: samples.count, peak: samplePeak, measure: { $0.add(UnsafeBufferPointer(samples)) },
                                truePeak: { frames, channels in
                                    InterSamplePeak.peak(frames: frames, channels: channels, samplePeak: samplePeak) { Float(samples[$0]) / 32768 }
                                })
        else { return }
        // A gain that moves steps every 32 frames (0.7 ms).
        Int16Samples.scale(samples, channels: gains.channels, from: Float(pow(10, gains.from / 20)), to: Float(pow(10, gains.to / 20)))
    }

    /// Measures `samples` (interleaved 32-bit float) and levels them in place.
    public func process(_ samples: UnsafeMutableBufferPointer<Float>) {
        var peak: Float = 0
        for sample in samples { peak = max(peak, abs(sample)) }
        guard let gains = level(count: samples.count, peak: peak, measure: { $0.add(UnsafeBufferPointer(samples)) },
                                truePeak: { frames, channels in
                                    InterSamplePeak.peak(frames: frames, channels: channels, samplePeak: peak) { samples[$0] }
                                })
        else { return }
        Self.scale(samples, gains) { sample, factor in sample * factor }
    }

    /// Measures `samples` (interleaved 64-bit float) and levels them in place.
    public func process(_ samples: UnsafeMutableBufferPointer<Double>) {
        var peak = 0.0
        for sample in samples { peak = max(peak, abs(sample)) }  // NaN never wins: max keeps the other
        guard let gains = level(count: samples.count, peak: Float(peak), measure: { $0.add(UnsafeBufferPointer(samples)) },
                                truePeak: { frames, channels in
                                    InterSamplePeak.peak(frames: frames, channels: channels, samplePeak: Float(peak)) { Float(samples[$0]) }
                                })
        else { return }
        Self.scale(samples, gains) { sample, factor in sample * Double(factor) }
    }

    /// The gain across one stretch: from the first frame's to the last's, dB.
    private struct Gains {
        var from: Double
        var to: Double
        var channels: Int
    }

    /// The loudness is read from every stretch of the stream's first `fullReading` seconds, then from
    /// `readingWindow` of every `readingPeriod` seconds.
    static let fullReading = 60.0, readingWindow = 1.2, readingPeriod = 19.2
    /// A stretch whose sample peak comes this close to the ceiling with the gain has its true peak read.
    static let truePeakMargin = 2.0

    /// Measures a stretch of `count` samples whose highest sample is
    /// `samplePeak` (full scale 1), `truePeak(frames, channels)` its true
    /// peak; the gains to apply, nil for none.
    ///
    /// What it reads costs most of levelling's CPU, so it reads only what
    /// the gain needs: no loudness when the file's is known; every stretch
    /// of the first minute (the first seconds alone may be a loud intro),
    /// then a sixteenth of the stream (a sixteenth of an hour is still
    /// 2,000 of R 128's 100 ms steps); the
    /// true peak (`InterSamplePeak`) only of stretches whose sample peak
    /// comes within `truePeakMargin` of the ceiling, the others' sample peak
    /// being far enough under it.
    private func level(count: Int, peak samplePeak: Float, measure: (LoudnessMeter) -> Void,
                       truePeak: (_ frames: Int, _ channels: Int) -> Float) -> Gains? {
        let gains: Gains? = state.withLock { state in
            guard state.target != nil else { return nil }
            if state.meter == nil { state.meter = LoudnessMeter(channels: state.channels, sampleRate: state.sampleRate, truePeak: false) }
            guard let meter = state.meter else { return nil }
            let frames = count / meter.channels
            guard frames > 0 else { return nil }
            let rate = Double(meter.sampleRate)
            let heard = Double(state.frames) / rate
            state.frames += frames
            if state.measurement == nil,
               meter.seconds < Self.fullReading || heard.truncatingRemainder(dividingBy: Self.readingPeriod) < Self.readingWindow {
                measure(meter)
                // Read again after each 100 ms measured (R 128's step), not after every stretch.
                if meter.seconds >= state.measuredAt + 0.1 {
                    state.measured = meter.integrated
                    state.measuredAt = meter.seconds
                }
            }
            var peak = samplePeak > 0 ? 20 * log10(Double(samplePeak)) : nil
            if let sampled = peak, sampled + state.applied > LoudnessLeveller.ceiling - Self.truePeakMargin {
                peak = max(sampled, 20 * log10(Double(truePeak(frames, meter.channels))))
            }
            let from = state.applied
            let to = state.leveller.next(duration: Double(frames) / rate, rate: state.rate,
                                         measured: state.measurement == nil ? state.measured : nil,
                                         seconds: state.measurement == nil ? meter.seconds : heard, peak: peak)
            state.applied = to
            // A peak's reduction applies from the stretch's start; a rise is spread over it.
            return Gains(from: to < from && state.leveller.reduction < 0 ? to : from, to: to, channels: meter.channels)
        }
        guard let gains, gains.from != 0 || gains.to != 0 else { return nil }
        return gains
    }

    /// Multiplies each frame by a gain moving straight across the stretch.
    @inline(__always)
    private static func scale<Sample>(_ samples: UnsafeMutableBufferPointer<Sample>, _ gains: Gains,
                                      _ multiply: (Sample, Float) -> Sample) {
        let channels = gains.channels, frames = samples.count / channels
        let first = Float(pow(10, gains.from / 20)), last = Float(pow(10, gains.to / 20))
        guard first != last else {
            for index in 0..<(frames * channels) { samples[index] = multiply(samples[index], first) }
            return
        }
        let step = (last - first) / Float(frames)
        for frame in 0..<frames {
            let factor = first + step * Float(frame + 1)
            let base = frame * channels
            for channel in 0..<channels { samples[base + channel] = multiply(samples[base + channel], factor) }
        }
    }
}
