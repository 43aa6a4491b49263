import Foundation
@testable import PodsLoudness
import Testing

/// The inter-sample peak levelling reads near its ceiling, against
/// libebur128's own true peak (4× oversampled, every sample).
struct InterSamplePeakTests {
    /// Sines whose peaks fall between samples (near a quarter of the rate
    /// and above), pink-ish noise, and a square wave's edges.
    static let names = ["11025 Hz + phase", "14700 Hz", "997 Hz", "noise", "square"]

    static func signal(_ name: String) -> [Float] {
        signals().first { $0.0 == name }?.1 ?? []
    }

    static func signals() -> [(String, [Float])] {
        var noise = [Float](repeating: 0, count: 48000)
        var seed: UInt64 = 7, last: Float = 0
        for index in noise.indices {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            last = 0.9 * last + 0.1 * (Float(seed >> 40) / Float(1 << 24) - 0.5)
            noise[index] = last * 4
        }
        let square = (0..<48000).map { index -> Float in (index / 20) % 2 == 0 ? 0.5 : -0.5 }
        return [
            ("11025 Hz + phase", (0..<48000).map { Float(0.5 * sin(2 * .pi * 11025 * Double($0) / 44100 + 0.7)) }),
            ("14700 Hz", (0..<48000).map { Float(0.5 * sin(2 * .pi * 14700 * Double($0) / 44100 + 0.3)) }),
            ("997 Hz", (0..<48000).map { Float(0.5 * sin(2 * .pi * 997 * Double($0) / 44100)) }),
            ("noise", noise),
            ("square", square),
        ]
    }

    @Test(arguments: names)
    func readsWhatLibebur128ReadsWithinAQuarterDecibel(name: String) throws {
        let samples = Self.signal(name)
        let meter = try #require(LoudnessMeter(channels: 1, sampleRate: 44100))
        samples.withUnsafeBufferPointer { meter.add($0) }
        let reference = try #require(meter.truePeak)
        let samplePeak = samples.map(abs).max()!
        // In stretches of 1152 frames (an MP3 frame), as levelling reads them.
        var highest: Float = 0
        for start in stride(from: 0, to: samples.count, by: 1152) {
            let stretch = Array(samples[start..<min(start + 1152, samples.count)])
            let peak = stretch.map(abs).max()!
            highest = max(highest, InterSamplePeak.peak(frames: stretch.count, channels: 1, samplePeak: peak) { stretch[$0] })
        }
        let estimate = 20 * log10(Double(highest))
        print("true peak of \(name): sample peak \(20 * log10(Double(samplePeak))) dBFS, libebur128 \(reference) dBTP, here \(estimate)")
        #expect(abs(estimate - reference) < 0.25, "\(name): \(estimate) against \(reference)")
    }
}
