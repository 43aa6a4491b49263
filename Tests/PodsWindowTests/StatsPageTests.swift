import Foundation
import PodsTestSupport
import Testing

/// Stats in the real window: what was heard shows as words, as a bar
/// chart a screen reader is told the figures of, and by podcast.
@Suite(.timeLimit(.minutes(5))) struct StatsPageTests {
    @Test func whatWasHeardShowsByWeekAndByPodcast() async throws {
        let (podsd, server) = try await WindowTests.podsdWithAShow()
        defer { server.stop() }
        #expect(await podsd.pods("play", "1").status == 0)
        try await waitFor(timeout: .seconds(5)) { await podsd.playerctl("status").stdout.contains("Playing") }
        try await Task.sleep(for: .seconds(3))
        #expect(await podsd.pods("pause").status == 0)
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("page tab", "^Stats$")
            try await driver.press("page tab", "^Stats$")
            try await driver.wait("label", "heard in 1 session$", seconds: 5)
            try await driver.wait("image", "^Hours heard by week: week of \\d{4}-\\d\\d-\\d\\d: 0:00:0[2-5]", seconds: 5)
            try await driver.wait("label", "^Window Show: 0:00:0[2-5] heard", seconds: 5)
            desktop.screenshot("stats")
        }
    }
}
