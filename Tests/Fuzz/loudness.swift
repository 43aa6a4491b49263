// libFuzzer harness: audio samples as a hostile file decodes them (any
// values: NaN, infinities, full scale, denormals) in any shape podsd can be
// given, through the R 128 meter and the levelling stage that changes them
// in place. Bytes 0-3: channels, rate, sample type, target and speed; the
// rest is the samples, fed again and again so the leveller settles.
// Built by scripts/fuzz with the PodsLoudness sources and libebur128.
import Foundation

public func fuzzLoudness(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 4 else { return 0 }
    let channels = Int(data[0] % 10)  // 0 and 9 are refused
    let rates = [0, 8000, 22050, 44100, 48000, 96000, 384_000, 384_001]
    let rate = rates[Int(data[1]) % rates.count]
    let stage = LevellingStage()
    let known = data[3] & 1 == 1 ? LoudnessMeasurement(checking: -60 + Double(data[3] >> 1), truePeak: Double(data[2]) - 100) : nil
    stage.configure(target: -30 + Double(data[3] % 21), measurement: known)
    stage.setFormat(channels: channels, sampleRate: rate)
    stage.streamStarted()
    stage.setRate(0.5 + Double(data[2] >> 2) / 16)
    var bytes = Array(UnsafeBufferPointer(start: data + 4, count: size - 4))
    for round in 0..<24 {
        if round == 12 { stage.setFormat(channels: max(channels, 1), sampleRate: 48000) }  // a shape that changes mid-stream
        bytes.withUnsafeMutableBytes { raw in
            switch data[2] % 3 {
            case 0: stage.process(raw.bindMemory(to: Int16.self))
            case 1: stage.process(raw.bindMemory(to: Float.self))
            default: stage.process(raw.bindMemory(to: Double.self))
            }
        }
    }
    _ = stage.gain
    if let meter = LoudnessMeter(channels: max(channels, 1), sampleRate: max(rate, 8000)) {
        bytes.withUnsafeBytes { meter.add($0.bindMemory(to: Float.self)) }
        _ = (meter.integrated, meter.truePeak)
    }
    return 0
}
