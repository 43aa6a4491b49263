import Foundation
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// A desktop for one window test: an X server of its own (Xvfb, no window
/// manager), the accessibility bus on the test's private session bus, a
/// real podsd on it, and `pods-gtk` shown there, driven through AT-SPI.
struct DesktopSession {
    let podsd: PodsdProcess
    let display: String
    /// The window's process: launched here, or started by the bus.
    private(set) var window: Int32
    let driver: AccessibilityDriver
    private let xserver: Process
    private let accessibility: Process
    /// The display's number: at-spi-bus-launcher names its bus after it.
    private let number: String

    /// What every process of the session is started with.
    var environment: [String: String] {
        podsd.bus.environment.merging(["DISPLAY": display, "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo", "ADW_DISABLE_PORTAL": "1"]) { $1 }
    }

    /// How the window comes up: launched as a desktop launches it, or
    /// raised through MPRIS as the desktop's media message raises it (the bus
    /// starts it from the activation file the test's bus was given).
    enum Opening { case launched, raisedThroughMPRIS }

    /// `environment`: more for the window (a test's own handler for web links).
    static func start(podsd: PodsdProcess, opening: Opening = .launched, environment extra: [String: String] = [:]) async throws -> DesktopSession {
        let xserver = Process()
        xserver.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
        xserver.arguments = ["-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp", "-noreset"]
        let number = try await Subprocess.firstLine(startingThe: xserver, threadName: "pods.test.xvfb")
        guard !number.isEmpty, number.allSatisfy(\.isNumber) else { throw TestSupportError("Xvfb gave no display: \(number)") }
        let display = ":" + number
        let accessibility = Process()
        var started = [xserver]
        // What is started before a failure is taken down with it.
        func failed(_ error: any Error) -> any Error {
            for process in started where process.isRunning { kill(process.processIdentifier, SIGKILL) }
            Self.stopAccessibilityBus(number)
            return error
        }
        accessibility.executableURL = URL(fileURLWithPath: "/usr/libexec/at-spi-bus-launcher")
        accessibility.arguments = ["--launch-immediately"]
        accessibility.environment = ProcessInfo.processInfo.environment.merging(podsd.bus.environment.merging(["DISPLAY": display]) { $1 }) { $1 }
        accessibility.standardOutput = FileHandle.nullDevice
        accessibility.standardError = FileHandle.nullDevice
        do {
            try accessibility.run()
            started.append(accessibility)
            try await waitFor(timeout: .seconds(10)) {
                await Subprocess.run("gdbus", ["call", "--session", "--dest", "org.a11y.Bus", "--object-path", "/org/a11y/bus",
                                               "--method", "org.a11y.Bus.GetAddress"], environment: podsd.bus.environment).status == 0
            }
        } catch { throw failed(error) }
        var session = DesktopSession(podsd: podsd, display: display, window: 0, driver: AccessibilityDriver(), xserver: xserver,
                                     accessibility: accessibility, number: number)
        let environment = ProcessInfo.processInfo.environment.merging(session.environment) { $1 }.merging(extra) { $1 }
        do {
            switch opening {
            case .launched:
                let window = Process()
                window.executableURL = URL(fileURLWithPath: Fixtures.executable("pods-gtk"))
                window.environment = environment
                window.standardOutput = FileHandle.nullDevice
                window.standardError = FileHandle.nullDevice
                try window.run()
                session.window = window.processIdentifier
            case .raisedThroughMPRIS:
                session.window = try await session.raiseThroughMPRIS()
            }
            try await session.driver.start(application: session.window, environment: environment)
            try await session.driver.wait("frame", "^Pods$")
        } catch {
            session.screenshot("start")
            session.stop()
            throw error
        }
        return session
    }

    /// The desktop's media message clicked: MPRIS `Raise`, called as GNOME
    /// Shell calls it, once the bus would start the window on this display.
    /// The window's process id, once it owns its name.
    private func raiseThroughMPRIS() async throws -> Int32 {
        // As a desktop session sets it: the bus was started with XDG_DATA_DIRS naming only the test's
        // activation files, and a window started with that finds no icon theme.
        let desktop = environment.merging(["XDG_DATA_DIRS": ProcessInfo.processInfo.environment["XDG_DATA_DIRS"] ?? "/usr/local/share:/usr/share"]) { $1 }
        let shown = ["DISPLAY", "GDK_BACKEND", "GSK_RENDERER", "ADW_DISABLE_PORTAL", "XDG_DATA_DIRS"].compactMap { key in
            desktop[key].map { "'\(key)': '\($0)'" }
        }
        let bus = ["--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus"]
        let updated = await Subprocess.run("gdbus", ["call"] + bus + ["--method", "org.freedesktop.DBus.UpdateActivationEnvironment",
                                                                      "{\(shown.joined(separator: ", "))}"], environment: podsd.bus.environment)
        guard updated.status == 0 else { throw TestSupportError("UpdateActivationEnvironment: \(updated.stderr)") }
        let raised = await Self.callMPRIS(podsd, "\(MPRIS.rootInterface).Raise")
        guard raised.status == 0 else { throw TestSupportError("Raise: \(raised.stderr)") }
        try await waitFor(timeout: .seconds(15)) { (try? await podsd.connection.nameHasOwner(PodsWindowBus.applicationID)) == true }
        return try await podsd.connection.processID(of: PodsWindowBus.applicationID)
    }

    /// `method` of podsd's MPRIS object called with `gdbus`, as GNOME Shell calls it.
    static func callMPRIS(_ podsd: PodsdProcess, _ method: String, _ arguments: [String] = []) async -> CommandResult {
        await Subprocess.run("gdbus", ["call", "--session", "--dest", MPRIS.busName, "--object-path", MPRIS.objectPath.rawValue,
                                       "--method", method] + arguments, environment: podsd.bus.environment)
    }

    /// Runs `body` on a desktop with `podsd`, and always takes the desktop down after.
    static func with(_ podsd: PodsdProcess, opening: Opening = .launched, environment: [String: String] = [:],
                     _ body: (DesktopSession) async throws -> Void) async throws {
        let session = try await start(podsd: podsd, opening: opening, environment: environment)
        do { try await body(session) } catch {
            session.screenshot("failure")
            session.stop()
            throw error
        }
        session.stop()
    }

    /// The screen as a PNG under the test's temporary folder (kept when a test fails).
    func screenshot(_ name: String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pods-gtk-\(name)-\(getpid()).png").path
        let shot = Process()
        shot.executableURL = URL(fileURLWithPath: "/usr/bin/import")
        shot.arguments = ["-display", display, "-window", "root", path]
        shot.standardOutput = FileHandle.nullDevice
        shot.standardError = FileHandle.nullDevice
        try? shot.run()
        shot.waitUntilExit()
        print("screenshot: \(path)")
    }

    func stop() {
        driver.stop()
        // Neither GTK nor at-spi-bus-launcher ends on a SIGTERM sent from here, and
        // Foundation's waitUntilExit never returned for them: killed, not awaited.
        for process in [window, accessibility.processIdentifier] where process > 0 && Self.isAlive(process) { kill(process, SIGKILL) }
        Self.stopAccessibilityBus(number)
        if Self.isAlive(xserver.processIdentifier) { kill(xserver.processIdentifier, SIGKILL) }
    }

    /// Whether process `pid` still runs (a zombie does not), read from /proc.
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return false }
        return !stat[end...].hasPrefix(") Z")
    }

    /// at-spi-bus-launcher leaves its bus (`…/at-spi/bus_N`) running when it
    /// is stopped; the registry on it ends with it.
    private static func stopAccessibilityBus(_ number: String) {
        let stopper = Process()
        stopper.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        stopper.arguments = ["-KILL", "-f", "at-spi/bus_\(number)$"]  // SIGTERM arrives blocked (above)
        try? stopper.run()
        stopper.waitUntilExit()  // pkill ends by itself
    }
}
