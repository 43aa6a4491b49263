import Foundation
import PodsClient
import PodsDBus
import PodsProtocol

/// Round trips and reaction times of an MPRIS player, as the benchmarks and
/// the scale tests measure them.
public enum MPRISTiming {
    /// One `Get(Position)` round trip.
    public static func getPosition(_ connection: DBusConnection, busName: String = MPRIS.busName) async throws -> Duration {
        let start = ContinuousClock.now
        _ = try await connection.call(destination: busName, path: MPRIS.objectPath,
                                      interface: "org.freedesktop.DBus.Properties", member: "Get",
                                      arguments: [.string(MPRIS.playerInterface), .string("Position")])
        return ContinuousClock.now - start
    }

    /// `count` times: PlayPause, then the time until a PropertiesChanged
    /// carrying PlaybackStatus arrives (ms, sorted). Stops early, with the
    /// samples so far, when `until` passes or the task is cancelled.
    public static func toggleLatencies(_ connection: DBusConnection, busName: String = MPRIS.busName, count: Int,
                                       pause: Duration = .milliseconds(20),
                                       until deadline: ContinuousClock.Instant? = nil) async throws -> [Double] {
        let signals = try await connection.signals(matching: DBusSignalMatch(
            sender: busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        var iterator = signals.makeAsyncIterator()
        var latencies: [Double] = []
        for _ in 0..<count {
            if let deadline, ContinuousClock.now > deadline { break }
            if Task.isCancelled { break }
            let start = ContinuousClock.now
            var failure: (any Error)?
            do {
                _ = try await connection.call(destination: busName, path: MPRIS.objectPath,
                                              interface: MPRIS.playerInterface, member: "PlayPause")
            } catch {
                failure = error
            }
            if let failure {
                if Task.isCancelled { break }
                throw failure
            }
            while let signal = await iterator.next() {
                if signal.arguments.count > 1, signal.arguments[1].stringKeyedDictionary?["PlaybackStatus"] != nil {
                    latencies.append(milliseconds(signal.receivedAt - start))
                    break
                }
            }
            try? await Task.sleep(for: pause)
        }
        return latencies.sorted()
    }

    /// `Get(Position)` round trips (ms, sorted) and PlayPause reaction times
    /// (ms, sorted) measured over and over while `work` runs.
    public static func during<T: Sendable>(
        _ connection: DBusConnection, busName: String = MPRIS.busName, toggles: Bool = true,
        _ work: @Sendable () async throws -> T
    ) async throws -> (result: T, getPosition: [Double], playPause: [Double]) {
        let gets = Task { () -> [Double] in
            var times: [Double] = []
            while !Task.isCancelled {
                if let time = try? await getPosition(connection, busName: busName) { times.append(milliseconds(time)) }
                try? await Task.sleep(for: .milliseconds(3))
            }
            return times.sorted()
        }
        let reactions = Task { () -> [Double] in
            guard toggles else { return [] }
            // One run until cancelled: the samples of a run cut short are kept
            // (batches of ten lost their last one, all of a 0.5 s listing's).
            return (try? await toggleLatencies(connection, busName: busName, count: .max, pause: .milliseconds(30))) ?? []
        }
        let result = try await work()
        gets.cancel()
        reactions.cancel()
        return (result, await gets.value, await reactions.value)
    }

    /// The `p` quantile (0–1) of sorted values; NaN for none.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    public static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
