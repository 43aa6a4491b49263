import Foundation
import PodsTestSupport
import Testing

/// The hostile world's hang: a stream left a streaming thread blocked, a
/// state change waited for it on the thread that answers the player, and
/// every `org.pods.Player1` and MPRIS call stopped answering until podsd
/// was restarted. Here the sink's `identity` holds the first buffer for an
/// hour (its pad's stream lock held, as the blocked thread held one).
@Suite(.timeLimit(.minutes(10))) struct StuckStreamTests {
    @Test func aStuckStreamNeverStopsThePlayerAnswering() async throws {
        let podsd = try await PodsdProcess.start(audioSink: "identity sleep-time=3600000000 ! fakesink sync=true")
        #expect(await podsd.pods("subscribe", Fixtures.data("sample-podcast.xml").absoluteString).status == 0)
        _ = await podsd.pods("play", "1")  // never prerolls: answers after the player's open timeout

        // Each call answers at once: pausing, stopping (which waits for the stuck thread), the player's own interface.
        for arguments in [["pause"], ["stop"], ["play"], ["position", "30"]] {
            let started = ContinuousClock.now
            let result = await podsd.playerctl(arguments)
            #expect(result.status == 0, "playerctl \(arguments): \(result.stderr)")
            #expect(ContinuousClock.now - started < .seconds(3), "playerctl \(arguments) took \(ContinuousClock.now - started)")
        }
        let started = ContinuousClock.now
        #expect(await podsd.pods("chapters", "1").status == 0)
        #expect(await podsd.pods("status").status == 0)
        #expect(ContinuousClock.now - started < .seconds(4), "pods chapters and status took \(ContinuousClock.now - started)")

        // The stuck pipeline is given up: stopped, with one error saying why, and the player goes on.
        try await waitFor(timeout: .seconds(20)) {
            await podsd.pods("status").stdout.contains("pipeline was replaced")
        }
        #expect(await podsd.playerctl("status").stdout.trimmed == "Stopped")
        #expect(podsd.isRunning)
    }
}
