import Foundation
import PodsDBus
import PodsTestSupport
import Testing

/// The suite's buses start only what a test provides. On a machine with
/// the GNOME desktop, a bus that read the standard service folders started
/// the real GNOME Keyring for the private-feed and sync tests, and four
/// suites failed there (112 expectations) while passing on CI's minimal set.
@Suite(.timeLimit(.minutes(10))) struct HermeticBusTests {
    @Test func aTestsBusActivatesNothingTheMachineHasInstalled() async throws {
        let bus = try await PrivateBus.start()
        let connection = try await DBusConnection.connect(address: bus.address)
        let activatable = try await connection.activatableNames()
        #expect(activatable == ["org.freedesktop.DBus"], "\(activatable)")
    }

    @Test func aTestsBusActivatesWhatTheTestProvides() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let services = directory.appendingPathComponent("share/dbus-1/services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        try "[D-BUS Service]\nName=org.example.Provided\nExec=/bin/false\n"
            .write(to: services.appendingPathComponent("org.example.Provided.service"), atomically: true, encoding: .utf8)
        let bus = try await PrivateBus.start(environment: ["XDG_DATA_DIRS": directory.appendingPathComponent("share").path])
        let connection = try await DBusConnection.connect(address: bus.address)
        #expect(Set(try await connection.activatableNames()) == ["org.freedesktop.DBus", "org.example.Provided"])
    }

    /// The bus ./scripts/test runs the suite on is the template itself
    /// (`dbus-run-session --config-file`): it names no service folder and
    /// includes nothing that could.
    @Test func theSuitesOwnSessionBusIsHermeticToo() throws {
        let text = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Tests/session-bus.conf"), encoding: .utf8)
        for element in ["<servicedir", "<standard_session_servicedirs", "<include", "<servicehelper"] {
            #expect(!text.contains(element), "Tests/session-bus.conf has \(element)")
        }
        let script = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("scripts/test"), encoding: .utf8)
        let sessions = script.components(separatedBy: "dbus-run-session").count - 1
        let hermetic = script.components(separatedBy: "dbus-run-session --config-file=Tests/session-bus.conf").count - 1
        #expect(sessions >= 1 && hermetic == sessions, "\(sessions) dbus-run-session, \(hermetic) with the template")
    }
}
