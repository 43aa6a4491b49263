import Foundation
import PodsTestSupport
import Testing

/// The player bar's speed, sleep timer and volume in the real window: each
/// reaches podsd, and what `pods` changes shows in the bar at once; and
/// its keyboard shortcut.
@Suite(.timeLimit(.minutes(5))) struct PlayerBarTests {
    static func status(_ podsd: PodsdProcess) async throws -> [String: Any] {
        let shown = await podsd.pods("status", "--json")
        return try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any], "\(shown)")
    }

    @Test func speedSleepAndVolumeReachPodsdAndFollowIt() async throws {
        let (podsd, server) = try await WindowTests.podsdWithAShow()
        defer { server.stop() }
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            #expect(await podsd.pods("play", "1").status == 0)
            try await driver.wait("push button", "^Pause$", seconds: 5)
            // The keyboard: Ctrl+Space pauses and plays again.
            try await driver.send("key ctrl+space")
            try await waitFor(timeout: .seconds(3)) { await podsd.playerctl("status").stdout.contains("Paused") }
            try await driver.wait("push button", "^Play$", seconds: 5)
            try await driver.send("key ctrl+space")
            try await waitFor(timeout: .seconds(3)) { await podsd.playerctl("status").stdout.contains("Playing") }

            try await driver.press("push button", "^Speed, 1×$")
            try await driver.wait("push button", "^1.5×$", seconds: 5)
            try await driver.press("push button", "^1.5×$")
            try await waitFor(timeout: .seconds(3)) { (try? await Self.status(podsd))?["rate"] as? Double == 1.5 }
            try await driver.wait("push button", "^Speed, 1.5×$", seconds: 5)
            // Changed elsewhere: the bar follows.
            #expect(await podsd.pods("speed", "2").status == 0)
            try await driver.wait("push button", "^Speed, 2×$", seconds: 5)

            try await driver.press("push button", "^Sleep timer, off$")
            try await driver.wait("push button", "^In 15 minutes$", seconds: 5)
            try await driver.press("push button", "^In 15 minutes$")
            try await waitFor(timeout: .seconds(3)) {
                ((try? await Self.status(podsd))?["sleep"] as? [String: Any])?["mode"] as? String == "time"
            }
            try await driver.wait("push button", "^Sleep timer, in 1[45]:\\d\\d$", seconds: 5)
            try await driver.wait("label", "sleeps in 1[45]:\\d\\d$", seconds: 5)

            try await driver.press("push button", "^Volume, 100%$")
            try await driver.wait("slider", "^Volume$", seconds: 5)
            try await driver.set("slider", "^Volume$", to: "0.5")
            try await waitFor(timeout: .seconds(3)) {
                let volume = Double(await podsd.playerctl("volume").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                return abs(volume - 0.5) < 0.01
            }
            try await driver.wait("push button", "^Volume, 50%$", seconds: 5)
            let bar = try await driver.unnamed()
            #expect(bar.unnamed == [] && bar.seen >= 10, "\(bar)")
            desktop.screenshot("player-bar")
        }
    }
}
