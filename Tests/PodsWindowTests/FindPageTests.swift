import Foundation
import PodsTestSupport
import Testing

/// Find in the real window: words typed, podsd's index searched, and a
/// moment found played from there.
@Suite(.timeLimit(.minutes(5))) struct FindPageTests {
    @Test func wordsFoundPlayFromWhereTheyAre() async throws {
        let (podsd, server) = try await WindowTests.podsdWithAShow()
        defer { server.stop() }
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("page tab", "^Find$")
            try await driver.press("page tab", "^Find$")
            try await driver.wait("text", "^Words to find$")
            try await driver.set("text", "^Words to find$", to: "Third")
            try await driver.press("push button", "^Find$")
            try await driver.wait("push button", "^Play from here: .*Third", seconds: 5)
            let found = try await driver.unnamed()
            #expect(found.unnamed == [] && found.seen >= 8, "\(found)")
            try await driver.press("push button", "^Play from here: .*Third")
            try await waitFor(timeout: .seconds(5)) { await podsd.playerctl("metadata", "xesam:title").stdout.contains("Third episode") }
            desktop.screenshot("find")
        }
    }
}
