import Foundation
import PodsPlayback
import PodsTestSupport
import Testing

/// Speed changes keep the pitch: a 440 Hz tone played at 2× comes out as
/// 440 Hz in half the time (without scaletempo it would be 880 Hz).
@Suite(.timeLimit(.minutes(10))) struct PitchTests {
    static let sampleRate = 22050

    @Test func doubleSpeedKeepsThePitch() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tone = directory.appendingPathComponent("tone.wav")
        try Self.sineWAV(frequency: 440, seconds: 4).write(to: tone)
        let output = directory.appendingPathComponent("out.raw")
        let harness = try EngineHarness(audioSink:
            "audioconvert ! audioresample ! audio/x-raw,format=S16LE,channels=1,rate=\(Self.sampleRate) ! filesink location=\(output.path)")
        harness.engine.load(MediaSource(filePath: tone.path))
        harness.engine.setRate(2.0)
        await harness.waitUntilSettled()
        harness.engine.play()
        #expect(await harness.waitFor { if case .endOfStream = $0 { true } else { false } } != nil)

        let samples = try Self.samples(Data(contentsOf: output))
        let seconds = Double(samples.count) / Double(Self.sampleRate)
        #expect(abs(seconds - 2) < 0.25, "played \(seconds) s of a 4 s tone at 2×")
        let middle = Array(samples[samples.count / 4 ..< samples.count * 3 / 4])
        let frequency = Self.zeroCrossingFrequency(middle)
        #expect(abs(frequency - 440) < 25, "pitch \(frequency) Hz at 2× (880 would mean no pitch correction)")
    }

    /// A mono 16-bit PCM WAV file.
    static func sineWAV(frequency: Double, seconds: Double) -> Data {
        let count = Int(Double(sampleRate) * seconds)
        var pcm = Data(capacity: count * 2)
        for index in 0..<count {
            let value = Int16(sin(2 * .pi * frequency * Double(index) / Double(sampleRate)) * 12000)
            withUnsafeBytes(of: value.littleEndian) { pcm.append(contentsOf: $0) }
        }
        var wav = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { wav.append(contentsOf: $0) } }
        wav.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36 + pcm.count))
        wav.append(contentsOf: Array("WAVEfmt ".utf8)); append(UInt32(16)); append(UInt16(1)); append(UInt16(1))
        append(UInt32(sampleRate)); append(UInt32(sampleRate * 2)); append(UInt16(2)); append(UInt16(16))
        wav.append(contentsOf: Array("data".utf8)); append(UInt32(pcm.count))
        return wav + pcm
    }

    static func samples(_ data: Data) throws -> [Int16] {
        data.withUnsafeBytes { raw in
            stride(from: 0, to: raw.count - 1, by: 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0, as: Int16.self)) }
        }
    }

    /// Upward zero crossings per second.
    static func zeroCrossingFrequency(_ samples: [Int16]) -> Double {
        guard samples.count > 1 else { return 0 }
        var crossings = 0
        for index in 1..<samples.count where samples[index - 1] < 0 && samples[index] >= 0 { crossings += 1 }
        return Double(crossings) / (Double(samples.count) / Double(sampleRate))
    }
}
