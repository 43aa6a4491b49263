import Foundation
import PodsPlayback
import PodsTestSupport
import Testing

/// A stream can block a pipeline's streaming thread for good, and a state
/// change then waits for that thread (the hostile world's hang: every call
/// to the player stopped answering). Here the sink's `identity` sleeps an
/// hour on the first buffer, holding its pad's stream lock as the blocked
/// thread did; every later state change waits for it.
@Suite(.timeLimit(.minutes(10))) struct StalledPipelineTests {
    static let stuckSink = "identity sleep-time=3600000000 ! fakesink sync=true"

    @Test func aStuckPipelineNeverHoldsItsOwnerAndIsReplaced() async throws {
        let harness = try EngineHarness(audioSink: Self.stuckSink, stallLimit: .seconds(3))
        let engine = harness.engine
        engine.load(MediaSource(filePath: Fixtures.sampleOgg.path))
        try await Task.sleep(for: .milliseconds(500))  // the first buffer is in identity by now

        // Stopping waits for the stuck thread: the owner waits a second at most, then goes on.
        var started = ContinuousClock.now
        engine.stop()
        #expect(ContinuousClock.now - started < .milliseconds(1500), "stop held its caller \(ContinuousClock.now - started)")
        // Later calls are queued behind it without waiting at all.
        started = ContinuousClock.now
        engine.load(MediaSource(filePath: Fixtures.sampleMP3.path))
        engine.play()
        engine.seek(to: .seconds(5))
        engine.pause()
        #expect(ContinuousClock.now - started < .milliseconds(200), "queued calls held their caller \(ContinuousClock.now - started)")

        // After the stall limit the pipeline is given up, once, with one error.
        let failure = await harness.waitFor(.seconds(8)) { if case .error = $0 { true } else { false } }
        guard case .error(let error)? = failure else {
            Issue.record("no error after the stall limit")
            return
        }
        #expect(error.message.contains("pipeline was replaced"), "\(error.message)")
        #expect(engine.replacedPipelines == 1)

        // The new pipeline plays, into a sink that flows.
        try engine.setAudioSink("fakesink sync=true")
        engine.load(MediaSource(filePath: Fixtures.sampleMP3.path))
        engine.play()
        await harness.waitUntilSettled()
        let start = try #require(engine.position())
        try await Task.sleep(for: .seconds(1))
        let now = try #require(engine.position())
        #expect(now - start > .milliseconds(500), "the new pipeline moved \(now - start) in a second")
        #expect(engine.replacedPipelines == 1)
    }

    /// The source stays loaded across the replacement: play after the error
    /// starts it again from the top, as after any error.
    @Test func theSourceStaysLoadedInTheNewPipeline() async throws {
        let harness = try EngineHarness(audioSink: Self.stuckSink, stallLimit: .seconds(2))
        let engine = harness.engine
        engine.load(MediaSource(filePath: Fixtures.sampleOgg.path))
        try await Task.sleep(for: .milliseconds(500))
        engine.stop()
        _ = await harness.waitFor(.seconds(6)) { if case .error = $0 { true } else { false } }
        #expect(engine.replacedPipelines == 1)
        #expect(engine.source?.uri.hasSuffix(Fixtures.sampleOgg.lastPathComponent) == true)
        // The replacement plays into the same stuck sink: it stalls too, and is replaced again.
        engine.play()
        try await Task.sleep(for: .milliseconds(500))
        engine.stop()
        _ = await harness.waitFor(.seconds(6)) { if case .error = $0 { true } else { false } }
        #expect(engine.replacedPipelines == 2)
    }

    /// A healthy pipeline's calls wait for their answer as before.
    @Test func aHealthyPipelineAnswersInOrder() async throws {
        let harness = try EngineHarness()
        let engine = harness.engine
        engine.load(MediaSource(filePath: Fixtures.sampleOgg.path))
        await harness.waitUntilSettled()
        engine.stop()
        #expect(engine.position() == nil, "stopped, with a position")
        engine.seek(to: .seconds(12))
        await harness.waitUntilSettled()
        let landed = try #require(engine.position())
        #expect(gap(landed, .seconds(12)) < .milliseconds(100))
        #expect(engine.replacedPipelines == 0)
    }
}
