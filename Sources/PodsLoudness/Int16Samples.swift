/// The two passes levelling makes over 16-bit samples (what MP3 decoders
/// give), sixteen at a time: a podcast's whole playback costs podsd about
/// five CPU seconds an hour, so levelling's own share has to be small.
enum Int16Samples {
    private typealias Lanes = SIMD16<Int16>
    private static let width = Lanes.scalarCount

    /// The highest magnitude among `samples` (32768 for `Int16.min`).
    static func peak(_ samples: UnsafeMutableBufferPointer<Int16>) -> Int32 {
        guard let base = samples.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        var highest = Lanes(repeating: .min), lowest = Lanes(repeating: .max)
        var index = 0
        while index + width <= samples.count {
            let lanes = raw.loadUnaligned(fromByteOffset: index * 2, as: Lanes.self)
            highest = pointwiseMax(highest, lanes)
            lowest = pointwiseMin(lowest, lanes)
            index += width
        }
        var top = Int32(highest.max()), bottom = Int32(lowest.min())
        while index < samples.count {
            top = max(top, Int32(samples[index]))
            bottom = min(bottom, Int32(samples[index]))
            index += 1
        }
        return max(top, -bottom, 0)
    }

    /// Multiplies `samples` by `factor` (0 to 16), in fixed point with 12
    /// fractional bits (steps of 0.002 dB), truncated (half a step of the
    /// sample at most, −96 dBFS), clamped to the sample's range. The factor
    /// is held under 16, so no product passes Int32 (32768 × 65535 < 2³¹).
    static func scale(_ samples: UnsafeMutableBufferPointer<Int16>, by factor: Float) {
        guard let base = samples.baseAddress else { return }
        let fixed = Int32(max(0, min(65535, factor * 4096)))  // NaN: 0
        let raw = UnsafeMutableRawPointer(base)
        let multiplier = SIMD16<Int32>(repeating: fixed)
        let lower = SIMD16<Int32>(repeating: -32768), upper = SIMD16<Int32>(repeating: 32767)
        var index = 0
        while index + width <= samples.count {
            let wide = SIMD16<Int32>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: index * 2, as: Lanes.self))
            let product = ((wide &* multiplier) &>> 12).clamped(lowerBound: lower, upperBound: upper)
            raw.storeBytes(of: Lanes(truncatingIfNeeded: product), toByteOffset: index * 2, as: Lanes.self)
            index += width
        }
        while index < samples.count {
            samples[index] = Int16(clamping: (Int32(samples[index]) * fixed) >> 12)
            index += 1
        }
    }
}
