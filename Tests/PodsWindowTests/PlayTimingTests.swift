import Foundation
import PodsTestSupport
import Testing

/// How fast the window and podsd answer each other, in a suite of its own:
/// the test lanes run one suite at a time, so no other window shares the
/// two cores while it measures (the bound is the issue's: the button
/// turns within a second of `playerctl pause`).
@Suite(.timeLimit(.minutes(5))) struct PlayTimingTests {
    @Test func anEpisodePlayedFromTheWindowPlaysAndPlayerctlsPauseShowsInIt() async throws {
        let (podsd, server) = try await WindowTests.podsdWithAShow()
        defer { server.stop() }
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("list item", "^Window Show, Test Host")
            try await driver.press("push button", "^Open Window Show$")
            try await driver.wait("push button", "^Play Third episode$")
            try await driver.press("push button", "^Play Third episode$")
            let pressed = ContinuousClock.now
            try await waitFor(timeout: .seconds(5)) { await podsd.playerctl("status").stdout.contains("Playing") }
            #expect(ContinuousClock.now - pressed < .seconds(1.5), "Playing after \(ContinuousClock.now - pressed)")
            // The player bar turns to Pause, and back to Play when playerctl pauses.
            try await driver.wait("push button", "^Pause$", seconds: 5)
            #expect(await podsd.playerctl("pause").status == 0)
            let paused = ContinuousClock.now
            try await driver.wait("push button", "^Play$", seconds: 5)
            #expect(ContinuousClock.now - paused < .seconds(1), "the button turned after \(ContinuousClock.now - paused)")
            desktop.screenshot("played")
        }
    }
}
