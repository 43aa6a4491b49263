import Foundation
@testable import PodsPlayback
import PodsTestSupport
import Testing

@Suite(.timeLimit(.minutes(10))) struct PlaybackEngineTests {
    @Test func playsInRealTimeAndReportsDuration() async throws {
        let harness = try EngineHarness()
        harness.engine.load(MediaSource(filePath: Fixtures.sampleMP3.path))
        harness.engine.play()
        await harness.waitUntilSettled()
        let duration = try #require(await harness.duration())
        #expect(gap(duration, .seconds(90)) < .seconds(1))
        let start = try #require(harness.engine.position())
        let clockStart = ContinuousClock.now
        try await Task.sleep(for: .seconds(2))
        let moved = try #require(harness.engine.position()) - start
        let elapsed = ContinuousClock.now - clockStart
        // Never ahead of the wall clock; behind it only as a pipeline starved
        // of CPU falls (two loaded cores: up to a third), never frozen.
        #expect(moved < elapsed + .milliseconds(300) && moved > elapsed * 0.66, "moved \(moved) in \(elapsed)")
    }

    /// A one-second clip ends around the moment the next episode loads, at
    /// spread delays before and after its end: its end-of-stream, posted by
    /// the old pipeline (before the load, or while it stops), never reaches
    /// the new episode (which lasts 90 s, so any end seen is a stale one).
    @Test func theOldEpisodesEndNeverEndsTheNextOne() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = try await AudioFixtures.make(.ogg, seconds: 1, in: directory)
        let harness = try EngineHarness()
        var endsSeen = 0
        for round in 0..<16 {
            harness.engine.load(MediaSource(filePath: clip.path))
            harness.engine.play()
            // 0.8 s to 1.25 s after play: before, at and after the clip's end.
            try await Task.sleep(for: .milliseconds(800 + round * 30))
            // Its messages wait unread, as the controller's may: an end posted now is read after the next load.
            if let position = harness.engine.positionReader.position(), position >= .milliseconds(990) { endsSeen += 1 }
            harness.engine.load(MediaSource(filePath: Fixtures.sampleMP3.path))
            harness.engine.play()
            let stale = await harness.waitFor(.milliseconds(400)) { if case .endOfStream = $0 { true } else { false } }
            #expect(stale == nil, "round \(round): an end-of-stream reached the new episode")
        }
        // The window was hit from both sides: some clips were at their end before the next load, some were not.
        #expect(endsSeen > 0 && endsSeen < 16, "\(endsSeen) of 16 clips at their end before the load")
    }

    /// From the moment a new source loads until it prerolls, the position
    /// is the new source's start: never the old one's place, which the
    /// pipeline still answers with until its worker tears it down. A late
    /// worker (a loaded machine; here it is held 1.5 s, past the second
    /// `load` waits for it) once had a new episode at the last one's 0:42.
    @Test func aNewSourceNeverReportsTheOldOnesPlace() async throws {
        let harness = try EngineHarness()
        for start in [Duration.zero, .seconds(3)] {
            harness.engine.load(MediaSource(filePath: Fixtures.sampleMP3.path))
            harness.engine.play()
            await harness.waitUntilSettled()
            harness.engine.seek(to: .seconds(42))
            await harness.waitUntilSettled()
            harness.engine.pipeline.worker.post { Thread.sleep(forTimeInterval: 1.5) }
            harness.engine.load(MediaSource(filePath: Fixtures.sampleOgg.path), startingAt: start)
            var reads: [Duration] = []
            while harness.engine.isSettling, reads.count < 2000 {
                reads.append(harness.engine.currentPosition)
                _ = await harness.waitFor(.milliseconds(2)) { _ in false }  // handles what came meanwhile
            }
            #expect(!reads.isEmpty && reads.allSatisfy { $0 == start }, "start \(start): read \(reads.min() ?? .zero) to \(reads.max() ?? .zero)")
        }
    }

    @Test func seekLandsWithin100Milliseconds() async throws {
        let harness = try EngineHarness()
        harness.engine.load(MediaSource(filePath: Fixtures.sampleOgg.path))
        await harness.waitUntilSettled()
        for target in [Duration.seconds(42), .milliseconds(12_345), .seconds(3)] {
            harness.engine.seek(to: target)
            await harness.waitUntilSettled()
            let landed = try #require(harness.engine.position())
            #expect(gap(landed, target) < .milliseconds(100), "asked \(target), at \(landed)")
        }
    }

    @Test func doubleRateDoublesTheClock() async throws {
        let harness = try EngineHarness()
        harness.engine.load(MediaSource(filePath: Fixtures.sampleMP3.path))
        harness.engine.setRate(2.0)
        harness.engine.play()
        await harness.waitUntilSettled()
        try await Task.sleep(for: .milliseconds(300))
        let start = try #require(harness.engine.position())
        let clockStart = ContinuousClock.now
        try await Task.sleep(for: .seconds(2))
        let moved = try #require(harness.engine.position()) - start
        let elapsed = ContinuousClock.now - clockStart
        // Never ahead of twice the wall clock, and clearly faster than once.
        #expect(moved < elapsed * 2 + .milliseconds(400) && moved > elapsed * 1.33, "moved \(moved) in \(elapsed) at 2×")
        #expect(harness.engine.rate == 2.0)
        harness.engine.setRate(9)
        #expect(harness.engine.rate == PlaybackEngine.rateRange.upperBound)
    }

    @Test func stopRewindsAndKeepsTheSource() async throws {
        let harness = try EngineHarness()
        let source = MediaSource(filePath: Fixtures.sampleMP3.path)
        harness.engine.load(source, startingAt: .seconds(20))
        harness.engine.play()
        await harness.waitUntilSettled()
        #expect(try #require(harness.engine.position()) >= .seconds(20))
        harness.engine.stop()
        #expect(harness.engine.position() == nil)
        #expect(harness.engine.source == source)
        harness.engine.play()
        await harness.waitUntilSettled()
        #expect(try #require(harness.engine.position()) < .seconds(2))
    }

    @Test func missingFileIsNotFound() async throws {
        let harness = try EngineHarness()
        harness.engine.load(MediaSource(filePath: "/nonexistent/episode.mp3"))
        harness.engine.play()
        let event = await harness.waitFor { if case .error = $0 { true } else { false } }
        guard case .error(let error) = event else { Issue.record("no error for a missing file"); return }
        #expect(error.code == .notFound)
    }

    @Test func textFileIsUndecodable() async throws {
        let harness = try EngineHarness()
        harness.engine.load(MediaSource(filePath: Fixtures.packageRoot.appendingPathComponent("Package.swift").path))
        harness.engine.play()
        let event = await harness.waitFor {
            if case .error = $0 { return true }
            if case .asyncDone = $0 { return true }
            return false
        }
        switch event {
        case .error(let error): #expect(error.code == .undecodable)
        case .asyncDone: #expect(harness.engine.audioStreamCount() == 0)
        default: Issue.record("no error for a text file")
        }
    }

    @Test func httpPlaysAnd404IsNotFound() async throws {
        let server = try LoopbackHTTPServer(files: ["/episode.ogg": Fixtures.sampleOgg])
        let harness = try EngineHarness()
        harness.engine.load(try MediaSource(uri: server.url("/episode.ogg")))
        harness.engine.play()
        await harness.waitUntilSettled()
        #expect(await harness.duration() != nil)
        #expect(server.bytesSent > 0)

        harness.engine.load(try MediaSource(uri: server.url("/missing.mp3")))
        harness.engine.play()
        let event = await harness.waitFor { if case .error = $0 { true } else { false } }
        guard case .error(let error) = event else { Issue.record("no error for a 404"); return }
        #expect(error.code == .notFound)
    }

    @Test func deadServerIsANetworkError() async throws {
        let refusing = try RefusingPort()  // nothing listens on the port
        let port = refusing.port
        defer { withExtendedLifetime(refusing) {} }
        let harness = try EngineHarness()
        let start = ContinuousClock.now
        harness.engine.load(try MediaSource(uri: "http://127.0.0.1:\(port)/episode.mp3"))
        harness.engine.play()
        let event = await harness.waitFor { if case .error = $0 { true } else { false } }
        guard case .error(let error) = event else { Issue.record("no error for a dead server"); return }
        #expect(error.code == .network)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func sourcesAreValidated() throws {
        #expect(throws: PlaybackError.self) { try MediaSource(uri: "ftp://example.com/a.mp3") }
        #expect(throws: PlaybackError.self) { try MediaSource(uri: "not a uri") }
        #expect(throws: PlaybackError.self) { try MediaSource(uri: "http:///a.mp3") }
        #expect(try MediaSource(uri: "HTTPS://example.com/a.mp3").uri == "HTTPS://example.com/a.mp3")
        #expect(MediaSource(filePath: "/tmp/a b.mp3").uri == "file:///tmp/a%20b.mp3")
        #expect(MediaSource(filePath: "/tmp/a b.mp3").displayName == "a b.mp3")
    }

    @Test func badSinkIsASetupError() {
        #expect(throws: PlaybackError.self) { try PlaybackEngine(audioSink: "nosuchsink-element") }
    }

    @Test func supportedFormatsIncludeTheSamples() {
        let formats = SupportedFormats.playable()
        #expect(formats.contains("mp3"))
        #expect(formats.contains("vorbis"))
    }
}

/// The time-stretch element is new each time the pipeline starts from
/// READY: one that was stopped kept its old queue's fill count and copied
/// from the freed queue when the next stream needed a smaller one (a
/// SIGSEGV in the streaming thread, taking the test process with it).
@Suite(.timeLimit(.minutes(10))) struct TimeStretchRenewalTests {
    @Test func everyFormatFollowsEveryOtherAtOneAndAHalf() async throws {
        let show = try await FormatShow(in: EpisodeServer.audioDirectory)
        let harness = try EngineHarness()
        harness.engine.setRate(1.5)
        let formats = FormatShow.Format.allCases
        for from in formats {
            for to in formats where to != from {
                for format in [from, to] {
                    harness.engine.load(MediaSource(filePath: show.files[format]?.path ?? ""))
                    harness.engine.play()
                    await harness.waitUntilSettled()
                    let start = try #require(harness.engine.position())
                    try await Task.sleep(for: .milliseconds(200))
                    let moved = try #require(harness.engine.position()) - start
                    #expect(moved > .milliseconds(150), "\(from)→\(to): \(format) moved \(moved) in 200 ms at 1.5×")
                }
            }
        }
    }

    /// Stop (READY) and play again, in another format, with the rate set while stopped.
    @Test func aStopThenAnotherFormatStartsClean() async throws {
        let show = try await FormatShow(in: EpisodeServer.audioDirectory)
        let harness = try EngineHarness()
        harness.engine.setRate(2)
        for format in [FormatShow.Format.flac, .opus, .mp3, .m4a, .ogg, .flac] {
            harness.engine.load(MediaSource(filePath: show.files[format]?.path ?? ""))
            harness.engine.play()
            await harness.waitUntilSettled()
            try await Task.sleep(for: .milliseconds(150))
            harness.engine.stop()
            harness.engine.setRate(harness.engine.rate == 2 ? 0.5 : 2)
            harness.engine.play()
            await harness.waitUntilSettled()
            let start = try #require(harness.engine.position())
            try await Task.sleep(for: .milliseconds(200))
            #expect(try #require(harness.engine.position()) > start, "\(format) after a stop")
        }
    }
}
