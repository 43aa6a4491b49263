import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// A real subscriber on the bus sees PropertiesChanged and Seeked.
@Suite(.timeLimit(.minutes(10))) struct MPRISSignalTests {
    @Test func propertiesChangedAndSeeked() async throws {
        let podsd = try await PodsdProcess.start()
        let signals = try await podsd.connection.signals(matching: DBusSignalMatch(
            sender: MPRIS.busName, path: MPRIS.objectPath))
        var iterator = signals.makeAsyncIterator()
        try await podsd.client.open(uri: Fixtures.sampleOgg.absoluteString)
        try await podsd.client.pause()
        try await podsd.client.setPosition(.seconds(20))
        try await podsd.client.setRate(1.5)

        var changes: [String: DBusValue] = [:]
        var seeked: [Int64] = []
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, seeked.isEmpty || changes["Rate"] == nil {
            guard let signal = await iterator.next() else { break }
            if signal.member == "PropertiesChanged", signal.arguments.first?.stringValue != MPRIS.trackListInterface {
                #expect(signal.interface == "org.freedesktop.DBus.Properties")
                #expect(signal.arguments.first?.stringValue == MPRIS.playerInterface)
                #expect(signal.arguments.count == 3)
                for (key, value) in signal.arguments[1].stringKeyedDictionary ?? [:] { changes[key] = value }
                #expect(signal.arguments[2].stringArrayValue == [])
                #expect(signal.arguments[1].stringKeyedDictionary?["Position"] == nil)
            } else if signal.member == "Seeked" {
                #expect(signal.interface == MPRIS.playerInterface)
                if case .int64(let position) = signal.arguments.first { seeked.append(position) }
            }
        }
        #expect(changes["PlaybackStatus"] == .string("Paused"))
        #expect(changes["Rate"] == .double(1.5))
        #expect(changes["CanPlay"] == .bool(true))
        #expect(changes["Metadata"]?.stringKeyedDictionary?["mpris:trackid"]?.objectPathValue != nil)
        #expect(seeked == [20_000_000])
    }

    @Test func positionRunsInRealTimeFreezesWhenPausedAndDoublesAtRate2() async throws {
        let podsd = try await PodsdProcess.start()
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)
        try await Task.sleep(for: .milliseconds(300))
        let (moved, elapsed, inner) = try await measure(podsd, for: .seconds(5))
        // Never ahead of the wall clock; behind it only as a pipeline starved
        // of CPU falls (two loaded cores: up to a third); a frozen or 2× clock fails.
        #expect(moved < elapsed + 0.05 && moved > inner * 0.66, "moved \(moved) s in \(inner)–\(elapsed) s")

        try await podsd.client.pause()
        let (frozen, _, _) = try await measure(podsd, for: .seconds(1))
        #expect(frozen == 0)

        try await podsd.client.setRate(2.0)
        try await podsd.client.play()
        try await Task.sleep(for: .milliseconds(300))
        let (fast, fastElapsed, fastInner) = try await measure(podsd, for: .seconds(2))
        #expect(fast < 2 * fastElapsed + 0.05 && fast > 1.33 * fastInner, "moved \(fast) s in \(fastInner)–\(fastElapsed) s at 2×")
    }

    /// How far the position moved, and the time between the two readings:
    /// `elapsed` from just before the first call to just after the second
    /// (the readings happened within it, whatever the calls' latency), and
    /// `inner` from just after the first to just before the second.
    private func measure(_ podsd: PodsdProcess, for span: Duration) async throws -> (moved: Double, elapsed: Double, inner: Double) {
        let outerStart = ContinuousClock.now
        let start = try await podsd.client.property("Position").int64Value ?? 0
        let innerStart = ContinuousClock.now
        try await Task.sleep(for: span)
        let innerEnd = ContinuousClock.now
        let end = try await podsd.client.property("Position").int64Value ?? 0
        let outerEnd = ContinuousClock.now
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        return (Double(end - start) / 1e6, seconds(outerEnd - outerStart), seconds(innerEnd - innerStart))
    }
}
