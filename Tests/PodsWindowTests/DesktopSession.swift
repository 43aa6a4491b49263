import Foundation
import PodsTestSupport
import Testing

/// A desktop for one window test: an X server of its own (Xvfb, no window
/// manager), the accessibility bus on the test's private session bus, a
/// real podsd on it, and `pods-gtk` shown there, driven through AT-SPI.
struct DesktopSession {
    let podsd: PodsdProcess
    let display: String
    let window: Process
    let driver: AccessibilityDriver
    private let xserver: Process
    private let accessibility: Process
    /// The display's number: at-spi-bus-launcher names its bus after it.
    private let number: String

    /// What every process of the session is started with.
    var environment: [String: String] {
        podsd.bus.environment.merging(["DISPLAY": display, "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo", "ADW_DISABLE_PORTAL": "1"]) { $1 }
    }

    static func start(podsd: PodsdProcess) async throws -> DesktopSession {
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
        let window = Process()
        window.executableURL = URL(fileURLWithPath: Fixtures.executable("pods-gtk"))
        let session = DesktopSession(podsd: podsd, display: display, window: window, driver: AccessibilityDriver(), xserver: xserver,
                                     accessibility: accessibility, number: number)
        window.environment = ProcessInfo.processInfo.environment.merging(session.environment) { $1 }
        window.standardOutput = FileHandle.nullDevice
        window.standardError = FileHandle.nullDevice
        do {
            try window.run()
            try await session.driver.start(application: window.processIdentifier, environment: window.environment ?? [:])
            try await session.driver.wait("frame", "^Pods$")
        } catch {
            session.screenshot("start")
            session.stop()
            throw error
        }
        return session
    }

    /// Runs `body` on a desktop with `podsd`, and always takes the desktop down after.
    static func with(_ podsd: PodsdProcess, _ body: (DesktopSession) async throws -> Void) async throws {
        let session = try await start(podsd: podsd)
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
        for process in [window, accessibility] where Self.isAlive(process) { kill(process.processIdentifier, SIGKILL) }
        Self.stopAccessibilityBus(number)
        if Self.isAlive(xserver) { kill(xserver.processIdentifier, SIGKILL) }
    }

    /// Whether `process` still runs (a zombie does not), read from /proc.
    static func isAlive(_ process: Process) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
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
