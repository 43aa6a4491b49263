import Foundation
@testable import PodsPlayback
import PodsTestSupport
import Testing

/// What a pipeline the engine gave up may still do. (Among the parallel
/// suites: it waits, and times nothing.)
@Suite(.timeLimit(.minutes(3))) struct AbandonedPipelineTests {
    /// An abandoned pipeline lets go of the engine's one levelling stage
    /// (REVIEW-4, N15): should its stuck thread move again, its buffers
    /// must not move the gain of the pipeline that replaced it. Here the
    /// abandoned one flows on (its worker is held, as a stuck one's is, so
    /// its release waits), and a new target would move the gain within
    /// seconds of the samples it reads; none reach the stage.
    @Test func anAbandonedPipelineNoLongerLevels() async throws {
        let harness = try EngineHarness()
        let engine = harness.engine
        engine.setLoudness(target: -16, measurement: nil)
        engine.load(MediaSource(filePath: Fixtures.sampleOgg.path))
        engine.play()
        await harness.waitUntilSettled()
        try await Task.sleep(for: .seconds(2))
        engine.pipeline.worker.post { Thread.sleep(forTimeInterval: 7) }
        try engine.replacePipeline()
        engine.setLoudness(target: nil, measurement: nil)
        engine.setLoudness(target: -40, measurement: nil)  // measured anew, toward a gain far below this one
        let before = try #require(engine.loudnessGain)
        try await Task.sleep(for: .seconds(5))
        let after = try #require(engine.loudnessGain)
        #expect(abs(after - before) < 0.5, "the abandoned pipeline moved the gain from \(before) to \(after) dB")
    }
}
