import Foundation
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// The real window (`pods-gtk`) under Xvfb against the real podsd on a
/// private bus, found and pressed through the AT-SPI tree as a screen
/// reader meets it; what it did checked on podsd (MPRIS, `playerctl`).
@Suite(.timeLimit(.minutes(5))) struct WindowTests {
    /// A podsd with one podcast of three episodes served over loopback.
    static func podsdWithAShow() async throws -> (PodsdProcess, LoopbackHTTPServer) {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3, "/b.ogg": Fixtures.sampleOgg])
        server.setFile("/feed.xml", sampleFeed([
            ("a", "First episode", 1, server.url("/a.mp3")),
            ("b", "Second episode", 2, server.url("/b.ogg")),
            ("c", "Third episode", 3, server.url("/a.mp3")),
        ], title: "Window Show"))
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        return (podsd, server)
    }

    /// MPRIS `CanRaise`, as a media applet reads it.
    static func canRaise(_ podsd: PodsdProcess) async -> String {
        await DesktopSession.callMPRIS(podsd, "org.freedesktop.DBus.Properties.Get", [MPRIS.rootInterface, "CanRaise"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The desktop's media message clicked (MPRIS `Raise`) opens the window:
    /// the bus starts `pods-gtk` from its activation file, as an installed
    /// Pods has it, and a second `Raise` shows the same window. Where the
    /// window is not installed, `CanRaise` is false and `Raise` does nothing.
    @Test func raiseOpensTheWindowWhereItIsInstalledAndCanRaiseSaysWhere() async throws {
        let bare = try await PodsdProcess.start()
        #expect(await Self.canRaise(bare) == "(<false>,)")
        let ignored = await DesktopSession.callMPRIS(bare, "\(MPRIS.rootInterface).Raise")
        #expect(ignored.status == 0, "\(ignored)")  // it does nothing, as the specification has it
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await !bare.connection.nameHasOwner(PodsWindowBus.applicationID))

        let data = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let services = data.appendingPathComponent("dbus-1/services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        let template = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("data/org.pods.Pods.Window.service.in"), encoding: .utf8)
        let bin = URL(fileURLWithPath: Fixtures.executable("pods-gtk")).deletingLastPathComponent().path
        try template.replacingOccurrences(of: "@BINDIR@", with: bin)
            .write(to: services.appendingPathComponent("org.pods.Pods.Window.service"), atomically: true, encoding: .utf8)
        let podsd = try await PodsdProcess.start(bus: try await PrivateBus.start(environment: ["XDG_DATA_DIRS": data.path]))
        #expect(await Self.canRaise(podsd) == "(<true>,)")
        try await DesktopSession.with(podsd, opening: .raisedThroughMPRIS) { desktop in
            let again = await DesktopSession.callMPRIS(podsd, "\(MPRIS.rootInterface).Raise")
            #expect(again.status == 0, "\(again)")
            try await Task.sleep(for: .seconds(1))
            #expect(try await podsd.connection.processID(of: PodsWindowBus.applicationID) == desktop.window)
            #expect(try await desktop.driver.send("names frame").names.filter { $0 == "Pods" }.count == 1)
            desktop.screenshot("raised")
        }
    }

    @Test func theSliderSeeksAndClosingTheWindowLeavesPlaybackRunning() async throws {
        let (podsd, server) = try await Self.podsdWithAShow()
        defer { server.stop() }
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.press("push button", "^Open Window Show$")
            try await driver.wait("push button", "^Play First episode$")
            try await driver.press("push button", "^Play First episode$")
            try await waitFor(timeout: .seconds(5)) { await podsd.playerctl("status").stdout.contains("Playing") }
            // The slider spans the episode once its length is known (1:30), and says so in words.
            try await driver.wait("label", " of 1:30$", seconds: 5)
            try await driver.set("slider", "^Position$", to: "20")
            try await waitFor(timeout: .seconds(3)) {
                let position = Double(await podsd.playerctl("position").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                return position >= 19.5
            }
            // Closed as a listener closes it: the title bar's Close.
            try await driver.press("push button", "^Close$")
            try await waitFor(timeout: .seconds(5)) { !DesktopSession.isAlive(desktop.window) }
            let before = Double(await podsd.playerctl("position").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            try await Task.sleep(for: .seconds(1))
            let after = Double(await podsd.playerctl("position").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            #expect(after > before + 0.5, "the position went from \(before) to \(after) with the window closed")
        }
    }

    @Test func aSubscriptionFromTheWindowAppearsAndEveryControlIsNamed() async throws {
        let (podsd, server) = try await Self.podsdWithAShow()
        defer { server.stop() }
        server.setFile("/other.xml", sampleFeed([("x", "Other first", 4, server.url("/a.mp3"))], title: "Other Show"))
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("list item", "^Window Show")
            try await driver.set("text", "^Feed address or words$", to: server.url("/other.xml"))
            try await driver.press("push button", "^Subscribe$")
            try await driver.wait("list item", "^Other Show, Test Host", seconds: 10)
            let podcastsScreen = try await driver.unnamed()
            #expect(podcastsScreen.unnamed == [] && podcastsScreen.seen >= 8, "\(podcastsScreen)")
            try await driver.press("push button", "^Open Other Show$")
            try await driver.wait("push button", "^Play Other first$")
            let episodesScreen = try await driver.unnamed()
            #expect(episodesScreen.unnamed == [] && episodesScreen.seen >= 8, "\(episodesScreen)")
            // A refresh that finds a new episode adds it to the open list.
            server.setFile("/other.xml", sampleFeed([("x", "Other first", 4, server.url("/a.mp3")),
                                                     ("y", "Other second", 5, server.url("/a.mp3"))], title: "Other Show"))
            try await driver.press("push button", "^Refresh this podcast$")
            try await driver.wait("push button", "^Play Other second$", seconds: 10)
            desktop.screenshot("subscribed")
        }
    }

    /// podsd killed (kill -9) shows one banner, not a toast that goes; when
    /// podsd is back the banner goes and the window works again.
    @Test func podsdGoneShowsOneBannerAndTheWindowReconnectsWhenItIsBack() async throws {
        let (podsd, server) = try await Self.podsdWithAShow()
        defer { server.stop() }
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("list item", "^Window Show")
            #expect(await podsd.signal(SIGKILL) != nil)
            try await driver.wait("label", "^Pods’ service \\(podsd\\) stopped", seconds: 5)
            try await Task.sleep(for: .seconds(6))  // longer than a toast's 5 s: the banner stays
            #expect(try await driver.send("names label").names.filter { $0.contains("(podsd) stopped") }.count == 1)
            desktop.screenshot("podsd-gone")

            let again = try await PodsdProcess.start(bus: podsd.bus, directory: podsd.directory)
            try await waitFor(timeout: .seconds(5)) {
                !((try? await driver.send("names label").names) ?? []).contains { $0.contains("(podsd) stopped") }
            }
            try await driver.press("push button", "^Open Window Show$")
            try await driver.wait("push button", "^Play Second episode$")
            try await driver.press("push button", "^Play Second episode$")
            try await waitFor(timeout: .seconds(5)) { await again.playerctl("status").stdout.contains("Playing") }
        }
    }

    /// Unsubscribing takes the podcast off the list at once and waits for
    /// its Undo: undone, podsd never lost it; not undone, podsd drops it.
    @Test func unsubscribingWaitsForItsUndo() async throws {
        let (podsd, server) = try await Self.podsdWithAShow()
        defer { server.stop() }
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("list item", "^Window Show")
            try await driver.press("push button", "^Unsubscribe from Window Show$")
            try await driver.wait("label", "^No podcasts yet$", seconds: 5)
            // libadwaita 1.2 names the toast's button "Undo Undo" for a screen reader.
            try await driver.wait("push button", "^Undo", seconds: 5)
            try await driver.press("push button", "^Undo")
            try await driver.wait("list item", "^Window Show", seconds: 5)
            try await Task.sleep(for: .seconds(7))
            #expect(await podsd.pods("podcasts").stdout.contains("Window Show"))
            try await driver.wait("list item", "^Window Show", seconds: 5)

            try await driver.press("push button", "^Unsubscribe from Window Show$")
            try await driver.wait("label", "^No podcasts yet$", seconds: 5)
            try await waitFor(timeout: .seconds(10)) { !(await podsd.pods("podcasts").stdout.contains("Window Show")) }
            try await Task.sleep(for: .seconds(1))
            #expect(try await driver.send("names list_item").names.filter { $0.hasPrefix("Window Show") } == [])
        }
    }

    /// Ctrl+? opens the keyboard shortcuts, each action's keys in words.
    @Test func ctrlQuestionMarkShowsTheShortcuts() async throws {
        let podsd = try await PodsdProcess.start()
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("push button", "^Preferences$")
            try await driver.send("key ctrl+shift+question")
            try await driver.wait("label", "^Play or pause$", seconds: 5)
            try await driver.wait("label", "^Back to the podcasts$", seconds: 5)
            desktop.screenshot("shortcuts")
        }
    }

    /// Behind a sandbox's bus proxy that grants only MPRIS (and the
    /// accessibility bus, and its own name), the window says the library is
    /// out of reach, in one banner, and still controls playback.
    @Test func behindAnMPRISOnlyGrantTheWindowSaysTheLibraryIsOutOfReachAndStillPlays() async throws {
        let (podsd, server) = try await Self.podsdWithAShow()
        defer { server.stop() }
        #expect(await podsd.pods("play", "1").status == 0)
        try await waitFor(timeout: .seconds(5)) { await podsd.playerctl("status").stdout.contains("Playing") }
        let proxy = try await SandboxProxy.start(bus: podsd.bus, talk: [MPRIS.busName, "org.a11y.Bus"], own: [PodsWindowBus.applicationID])
        try await DesktopSession.with(podsd, environment: proxy.environment) { desktop in
            let driver = desktop.driver
            try await driver.wait("label", "^The library is out of reach", seconds: 10)
            #expect(try await driver.send("names list_item").names.isEmpty)
            try await driver.wait("push button", "^Pause$", seconds: 5)
            try await driver.press("push button", "^Pause$")
            try await waitFor(timeout: .seconds(3)) { await podsd.playerctl("status").stdout.contains("Paused") }
            desktop.screenshot("sandboxed")
        }
    }
}
