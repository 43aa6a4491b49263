import Foundation

/// The true peak of a stretch (its highest value between samples too, as a
/// DAC makes it), read only where it can matter: around the samples within
/// `window` dB of the stretch's highest, by 4× interpolation (a 16-tap
/// Hann-windowed sinc at each quarter between neighbours).
///
/// libebur128 reads true peaks by oversampling every sample of every
/// channel; levelling needs the peak only of stretches near its ceiling,
/// and there only around their highest samples, so this costs a small
/// share of that. `InterSamplePeakTests` hold it to libebur128's figure.
enum InterSamplePeak {
    /// Samples this close to the highest (dB) are looked around.
    static let window = 2.0
    static let halfTaps = 8
    /// `coefficients[p][k]`: the weight of sample `i - halfTaps + 1 + k` at `i + (p + 1) / 4`.
    static let coefficients: [[Float]] = (1...3).map { quarter in
        let offset = Double(quarter) / 4
        return (0..<(2 * halfTaps)).map { k in
            let distance = offset - Double(k - halfTaps + 1)
            let sinc = distance == 0 ? 1 : sin(.pi * distance) / (.pi * distance)
            let hann = 0.5 + 0.5 * cos(.pi * distance / Double(halfTaps))
            return Float(sinc * hann)
        }
    }

    /// `coefficients` in one array, a quarter after another.
    static let weights: [Float] = coefficients.flatMap { $0 }

    /// The true peak (full scale 1) of `count` interleaved frames of
    /// `channels`, whose highest sample is `samplePeak`; `value(i)` is sample `i`, full scale 1.
    @inline(__always)
    static func peak(frames count: Int, channels: Int, samplePeak: Float, value: (Int) -> Float) -> Float {
        guard samplePeak > 0, count > 1 else { return samplePeak }
        let threshold = samplePeak * Float(pow(10, -window / 20))
        let taps = 2 * halfTaps
        return weights.withUnsafeBufferPointer { weights in
            var highest = samplePeak
            for channel in 0..<channels {
                for frame in 0..<count where abs(value(frame * channels + channel)) >= threshold {
                    // Between the one before and this sample, and between this and the next.
                    for start in max(frame - 1, 0)...min(frame, count - 2) {
                        for quarter in 0..<3 {
                            var sum: Float = 0
                            for k in 0..<taps {
                                // Past the stretch's ends its edge sample stands in (zeros there would ring).
                                let neighbour = min(max(start - halfTaps + 1 + k, 0), count - 1)
                                sum += weights[quarter * taps + k] * value(neighbour * channels + channel)
                            }
                            highest = max(highest, abs(sum))
                        }
                    }
                }
            }
            return highest
        }
    }
}
