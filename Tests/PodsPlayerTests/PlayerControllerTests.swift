import Foundation
import PodsChapters
import PodsPlayback
@testable import PodsPlayer
import PodsSettings
import PodsTestSupport
import Testing

/// The player's rules, in process: no bus, no podsd, a real pipeline.
@Suite(.timeLimit(.minutes(10))) struct PlayerControllerTests {
    private static func controller() async throws -> (PlayerController, Task<Void, Never>) {
        let controller = try PlayerController(audioSink: "fakesink sync=true")
        let events = Task { await controller.run() }
        return (controller, events)
    }

    /// A transport call that comes while an announced load is being
    /// prepared applies to it: announced, paused, opened → paused on it.
    @Test func aPauseWhileALoadIsPreparedLeavesItPaused() async throws {
        let (controller, events) = try await Self.controller()
        defer { events.cancel() }
        let announced = await controller.announceLoad()
        await controller.pause()
        try await controller.open(MediaSource(uri: Fixtures.sampleMP3.absoluteString), announced: announced)
        let state = await controller.currentState()
        #expect(state.status == .paused && state.track?.load == announced)
        // A load announced is one that will play (Next, PlayEpisode): PlayPause while it is
        // prepared turns that round, so it opens paused; the track's own rate comes with it.
        let next = await controller.announceLoad()
        try await controller.playPause()
        try await controller.open(MediaSource(uri: Fixtures.sampleOgg.absoluteString), announced: next, rate: 1.5)
        let after = await controller.currentState()
        #expect(after.status == .paused && after.rate == 1.5 && after.track?.load == next)
        await controller.shutdown()
    }

    /// Of two loads, the last announced wins: the older one's open gives
    /// way, and an event about it is no longer the latest.
    @Test func theLastLoadAnnouncedWins() async throws {
        let (controller, events) = try await Self.controller()
        defer { events.cancel() }
        let older = await controller.announceLoad()
        let newer = await controller.announceLoad()
        await #expect(throws: PlaybackError.self) {
            try await controller.open(MediaSource(uri: Fixtures.sampleMP3.absoluteString), announced: older)
        }
        #expect(await controller.currentState().track == nil)
        let (newerIsLatest, olderIsLatest) = (controller.isLatestLoad(newer), controller.isLatestLoad(older))
        #expect(newerIsLatest && !olderIsLatest)
        try await controller.open(MediaSource(uri: Fixtures.sampleMP3.absoluteString), announced: newer)
        #expect(await controller.currentState().track?.load == newer)
        await controller.shutdown()
    }

    /// Skip-chapters' pattern meets the chapters' titles on a task of its
    /// own, never on the controller's actor (REVIEW-4, N11): 1,000 chapters
    /// of 300-character titles (a chapters file may hold 5,000) reach the
    /// controller in less than half the time matching them takes (seconds,
    /// in a debug build), and the matches follow.
    @Test func skipChaptersAreMatchedOffTheActor() async throws {
        let (controller, events) = try await Self.controller()
        defer { events.cancel() }
        let pattern = try TitlePattern(#"(\w+\s?)+sponsor"#)
        try await controller.open(MediaSource(uri: Fixtures.sampleMP3.absoluteString), paused: true,
                                  preferences: PlayerController.TrackPreferences(skipChapters: pattern))
        let trackID = try #require(await controller.currentState().track?.trackID)
        let words = String(repeating: "word ", count: 60)
        let chapters = (0..<1000).map { EpisodeChapter(start: Double($0) * 0.015, title: $0 == 600 ? "our sponsor" : words, source: .json) }
        let matching = ContinuousClock.now
        let alone = ChapterTimeline(chapters, skipping: pattern)
        let matchingTook = ContinuousClock.now - matching
        #expect(alone.skipped.count == 1)
        let handing = ContinuousClock.now
        await controller.setChapters(chapters, for: trackID)
        let handingTook = ContinuousClock.now - handing
        #expect(handingTook < matchingTook / 2, "setChapters took \(handingTook); matching alone \(matchingTook)")
        try await waitFor(timeout: .seconds(20)) { await controller.timeline.skipped.count == 1 }
        #expect(await controller.timeline.skipped.first?.start == 9)
        await controller.shutdown()
    }

    @Test func withNothingLoadedPlayPauseSaysSoAndRatesAreChecked() async throws {
        let (controller, events) = try await Self.controller()
        defer { events.cancel() }
        await #expect(throws: PlayerError(.notSupported, "No track is loaded")) { try await controller.playPause() }
        await #expect(throws: PlayerError.self) { try await controller.setRate(.nan) }
        await controller.shutdown()
    }
}

/// Cancellation reaches the pipeline's waits: an open whose caller gave up
/// (its D-Bus call timed out) returns at once instead of after the
/// server's first bytes or `openTimeout`; the load itself goes on.
@Suite(.timeLimit(.minutes(10))) struct PlayerCancellationTests {
    @Test func aCancelledOpenStopsWaitingForTheServerAndTheLoadGoesOn() async throws {
        let server = try LoopbackHTTPServer(files: ["/held.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.hold("/held.mp3")
        let controller = try PlayerController(audioSink: "fakesink sync=true")
        let events = Task { await controller.run() }
        defer { events.cancel() }
        let opening = Task { try await controller.open(MediaSource(uri: server.url("/held.mp3"))) }
        try await waitFor(timeout: .seconds(20)) { server.requests(for: "/held.mp3") > 0 }  // the pipeline waits for the bytes
        try await Task.sleep(for: .milliseconds(100))
        let cancelled = ContinuousClock.now
        opening.cancel()
        _ = try? await opening.value
        let waited = ContinuousClock.now - cancelled
        #expect(waited < .milliseconds(500), "the open returned \(waited) after its caller gave up")
        server.release("/held.mp3")
        try await waitFor(timeout: .seconds(10)) { await controller.currentState().status == .playing }
        await controller.shutdown()
    }
}
