/// The two passes levelling makes over 16-bit samples (what MP3 decoders
/// give): a podcast's whole playback costs podsd about five CPU seconds an
/// hour, so levelling's own share has to be small. Plain loops that LLVM
/// vectorizes: the first form, in `SIMD16` lanes, called the standard
/// library's `pointwiseMin`/`pointwiseMax` out of line for every sixteen
/// samples, and took 0.27 CPU seconds an hour of stereo audio where these
/// take 0.10 (measured over 317 million samples).
enum Int16Samples {
    /// The highest magnitude among `samples` (32768 for `Int16.min`).
    static func peak(_ samples: UnsafeMutableBufferPointer<Int16>) -> Int32 {
        var top: Int16 = 0, bottom: Int16 = 0
        for sample in samples {
            top = max(top, sample)
            bottom = min(bottom, sample)
        }
        return max(Int32(top), -Int32(bottom))
    }

    /// Multiplies `samples` (`channels` interleaved) by a factor moving
    /// straight from `first` to `last` (each 0 to 16) across them, a step
    /// every 32 frames, in fixed point with 12 fractional bits (steps of
    /// 0.002 dB), truncated (half a step of the sample at most, −96 dBFS),
    /// clamped to the sample's range. The factor is held under 16, so no
    /// product passes Int32 (32768 × 65535 < 2³¹).
    static func scale(_ samples: UnsafeMutableBufferPointer<Int16>, channels: Int, from first: Float, to last: Float) {
        let channels = max(channels, 1), frames = samples.count / channels
        guard frames > 0 else { return }
        let block = 32
        var start = 0
        while start < frames {
            let end = min(start + block, frames)
            let factor = first + (last - first) * Float(end) / Float(frames)
            scale(UnsafeMutableBufferPointer(rebasing: samples[(start * channels)..<(end * channels)]), by: factor)
            start = end
        }
    }

    /// Multiplies `samples` by `factor` (0 to 16), as `scale(_:channels:from:to:)` says.
    static func scale(_ samples: UnsafeMutableBufferPointer<Int16>, by factor: Float) {
        let fixed = Int32(max(0, min(65535, factor * 4096)))  // NaN: 0
        for index in samples.indices {
            samples[index] = Int16(truncatingIfNeeded: min(max((Int32(samples[index]) &* fixed) &>> 12, -32768), 32767))
        }
    }
}
