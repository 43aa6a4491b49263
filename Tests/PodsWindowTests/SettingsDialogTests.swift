import Foundation
import PodsTestSupport
import Testing

/// The settings windows against the real podsd: a podcast's own (set,
/// refused with podsd's reason, reset) and the player's Preferences.
@Suite(.timeLimit(.minutes(5))) struct SettingsDialogTests {
    static func config(_ podsd: PodsdProcess, _ arguments: String...) async -> String {
        await podsd.run(Fixtures.executable("pods"), ["config"] + arguments).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aPodcastsSettingsAreSetRefusedAndReset() async throws {
        let (podsd, server) = try await WindowTests.podsdWithAShow()
        defer { server.stop() }
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("push button", "^Open Window Show$")
            try await driver.press("push button", "^Open Window Show$")
            try await driver.wait("push button", "^Settings of this podcast$")
            try await driver.press("push button", "^Settings of this podcast$")
            try await driver.wait("text", "^speed$", seconds: 5)
            // Typed and set: podsd holds the podcast's own speed.
            try await driver.set("text", "^speed$", to: "1.5")
            try await driver.press("push button", "^Set speed$")
            try await waitFor(timeout: .seconds(3)) { await Self.config(podsd, "--podcast", "Window Show", "speed") == "1.5" }
            // Refused: podsd's reason shows, and the field goes back to the value in force.
            try await driver.set("text", "^speed$", to: "fast")
            try await driver.press("push button", "^Set speed$")
            try await driver.wait("label", "speed", seconds: 5)
            #expect(await Self.config(podsd, "--podcast", "Window Show", "speed") == "1.5")
            // Reset: back to the player's.
            try await driver.press("push button", "^Reset speed$")
            try await waitFor(timeout: .seconds(3)) {
                let listed = await Self.config(podsd, "--podcast", "Window Show")
                return listed.contains("speed") && !listed.contains("(podcast)")
            }
            let dialog = try await driver.unnamed()
            #expect(dialog.unnamed == [] && dialog.seen >= 12, "\(dialog)")
            desktop.screenshot("podcast-settings")
        }
    }

    @Test func thePreferencesSetThePlayersSettings() async throws {
        let (podsd, server) = try await WindowTests.podsdWithAShow()
        defer { server.stop() }
        #expect(await podsd.pods("config", "podcastindex-secret", "hunter2").status == 0)
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("push button", "^Preferences$")
            try await driver.press("push button", "^Preferences$")
            try await driver.wait("text", "^skip-forward$", seconds: 5)
            try await driver.set("text", "^skip-forward$", to: "45")
            try await driver.press("push button", "^Set skip-forward$")
            try await waitFor(timeout: .seconds(3)) { await Self.config(podsd, "skip-forward") == "45" }
            try await driver.press("check box", "^smart-rewind$")
            try await waitFor(timeout: .seconds(3)) { await Self.config(podsd, "smart-rewind") == "false" }
            // A secret is never shown back, not even as dots.
            #expect(try await driver.text("text", "^podcastindex-secret$") == "")
            for role in ["label", "text"] {
                #expect(try await driver.send("names \(role)").names.allSatisfy { !$0.contains("hunter2") })
            }
            desktop.screenshot("preferences")
        }
    }
}
