import Foundation
import PodsLoudness
import Testing

struct LoudnessLevellerTests {
    /// Interleaved stereo sine frames, `amplitude` peak, at 48 kHz.
    static func sine(seconds: Double, amplitude: Double, frequency: Double = 997, sampleRate: Int = 48000, from start: Int = 0) -> [Float] {
        let frames = Int(seconds * Double(sampleRate))
        var samples = [Float](repeating: 0, count: frames * 2)
        for frame in 0..<frames {
            let value = Float(amplitude * sin(2 * .pi * frequency * Double(start + frame) / Double(sampleRate)))
            samples[2 * frame] = value
            samples[2 * frame + 1] = value
        }
        return samples
    }

    /// R 128's reference (EBU Tech 3341): a 1 kHz sine in both channels reads its
    /// peak level in dBFS as LUFS; in one channel alone, 3.01 LU less.
    @Test func theMeterReadsR128sReferenceTone() throws {
        let meter = try #require(LoudnessMeter(channels: 2, sampleRate: 48000))
        let samples = Self.sine(seconds: 5, amplitude: 0.1)
        samples.withUnsafeBufferPointer { meter.add($0) }
        let integrated = try #require(meter.integrated)
        #expect(abs(integrated - (-20)) < 0.1, "\(integrated)")
        let peak = try #require(meter.truePeak)
        #expect(abs(peak - (-20)) < 0.2, "\(peak)")
        #expect(meter.seconds == 5)
    }

    @Test func outsideItsShapesThereIsNoMeterAndSilenceHasNoLoudness() throws {
        #expect(LoudnessMeter(channels: 0, sampleRate: 48000) == nil)
        #expect(LoudnessMeter(channels: 2, sampleRate: 0) == nil)
        #expect(LoudnessMeter(channels: 9, sampleRate: 48000) == nil)
        #expect(LoudnessMeter(channels: 2, sampleRate: 10_000_000) == nil)
        let meter = try #require(LoudnessMeter(channels: 1, sampleRate: 44100))
        [Float](repeating: 0, count: 44100).withUnsafeBufferPointer { meter.add($0) }
        #expect(meter.integrated == nil)
        #expect(meter.truePeak == nil)
        // A part frame is left out, not read past.
        let stereo = try #require(LoudnessMeter(channels: 2, sampleRate: 44100))
        [Float](repeating: 0.5, count: 3).withUnsafeBufferPointer { stereo.add($0) }
        #expect(stereo.frames == 1)
        #expect(LoudnessMeasurement(checking: .nan, truePeak: 0) == nil)
        #expect(LoudnessMeasurement(checking: -16, truePeak: .infinity) == nil)
        #expect(LoudnessMeasurement(checking: -16, truePeak: -1) != nil)
    }

    /// A quiet show (−30 LUFS) reaches −16 within the first seconds, then
    /// moves no faster than the slew, at 1× and at 2×.
    @Test(arguments: [1.0, 2.0])
    func aQuietStreamIsBroughtUpAndThenMovesSlowly(rate: Double) {
        var leveller = LoudnessLeveller(target: -16)
        var gains: [Double] = []
        let chunk = 0.02
        for index in 1...1500 {  // 30 s of media
            let seconds = Double(index) * chunk
            gains.append(leveller.next(duration: chunk, rate: rate, measured: seconds < 0.4 ? nil : -30, seconds: seconds, peak: -20))
        }
        #expect(abs(gains[Int(5 / chunk)] - 14) < 0.01)
        // After the settling: a change of what is measured moves the gain at the slew, in time heard.
        for index in 1501...2000 {
            gains.append(leveller.next(duration: chunk, rate: rate, measured: -20, seconds: Double(index) * chunk, peak: -20))
        }
        let steps = zip(gains.dropFirst(1500), gains.dropFirst(1501)).map { abs($1 - $0) }
        #expect(steps.max()! <= LoudnessLeveller.slew * chunk / rate + 1e-9)
        #expect(gains.last! < 14 && gains.last! >= 4)
    }

    /// A stretch whose peak the gain would lift past −1 dBTP is lowered at
    /// once, and the reduction let go slowly.
    @Test func aPeakIsHeldUnderTheCeiling() {
        var leveller = LoudnessLeveller(target: -16, measurement: LoudnessMeasurement(integrated: -30, truePeak: -3))
        #expect(leveller.next(duration: 0.02, rate: 1, measured: nil, seconds: 0.02, peak: -20) == 14)
        let lowered = leveller.next(duration: 0.02, rate: 1, measured: nil, seconds: 0.04, peak: -6)
        #expect(lowered == -1 - -6)
        let after = leveller.next(duration: 0.02, rate: 1, measured: nil, seconds: 0.06, peak: -20)
        #expect(after > lowered && after <= lowered + LoudnessLeveller.release * 0.02 + 1e-9)
        // A new stream starts from its measurement, or from no gain at all.
        leveller.measurement = nil
        leveller.restart()
        #expect(leveller.next(duration: 0.02, rate: 1, measured: -30, seconds: 0.02, peak: -20) == 0)
    }

    /// The stage in the stream: a −30 LUFS tone leaves at −16 (measured by a
    /// meter of its own on what comes out), and off it is not touched at all.
    @Test func theStageLevelsSamplesInPlaceAndOffTouchesNothing() throws {
        let stage = LevellingStage()
        stage.setFormat(channels: 2, sampleRate: 48000)
        stage.streamStarted()
        stage.configure(target: -16, measurement: nil)
        let out = try #require(LoudnessMeter(channels: 2, sampleRate: 48000))
        let quiet = pow(10, -30.0 / 20)  // −30 LUFS
        let chunkFrames = 960
        for index in 0..<(20 * 48000 / chunkFrames) {
            var samples = Self.sine(seconds: 0.02, amplitude: quiet, from: index * chunkFrames)
            samples.withUnsafeMutableBufferPointer { stage.process($0) }
            if index >= 10 * 48000 / chunkFrames { samples.withUnsafeBufferPointer { out.add($0) } }
        }
        let levelled = try #require(out.integrated)
        #expect(abs(levelled - (-16)) < 0.5, "\(levelled)")
        #expect(abs(try #require(stage.gain) - 14) < 0.1)

        // 16-bit samples (what MP3 decoders give scaletempo): levelled the same, never wrapped round.
        stage.streamStarted()
        stage.configure(target: -16, measurement: LoudnessMeasurement(integrated: -30, truePeak: -3))
        var pcm = Self.sine(seconds: 0.02, amplitude: quiet).map { Int16($0 * 32767) }
        let before = pcm
        pcm.withUnsafeMutableBufferPointer { stage.process($0) }
        let ratio = Double(pcm.map { abs(Int($0)) }.max()!) / Double(before.map { abs(Int($0)) }.max()!)
        #expect(abs(20 * log10(ratio) - 14) < 0.2, "\(ratio)")
        // The most the gain can be (+24 dB) on full-scale samples: held, never overflowing.
        let widest = LevellingStage()
        widest.setFormat(channels: 2, sampleRate: 48000)
        widest.streamStarted()
        widest.configure(target: -10, measurement: LoudnessMeasurement(integrated: -70, truePeak: -60))
        var extremes = [Int16](repeating: 0, count: 960 * 2)
        extremes[0] = .min
        extremes[1] = .max
        extremes.withUnsafeMutableBufferPointer { widest.process($0) }
        #expect(extremes[0] < 0 && extremes[1] > 0)
        var loud = [Int16](repeating: 30000, count: 960 * 2)
        loud.withUnsafeMutableBufferPointer { stage.process($0) }
        #expect(loud.allSatisfy { $0 > 0 && $0 <= 32767 })

        stage.configure(target: nil, measurement: nil)
        let original = Self.sine(seconds: 0.02, amplitude: quiet)
        var samples = original
        samples.withUnsafeMutableBufferPointer { stage.process($0) }
        #expect(samples == original)
        #expect(stage.gain == nil)
    }
}
