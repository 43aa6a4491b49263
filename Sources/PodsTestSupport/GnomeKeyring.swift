import Foundation
import PodsDBus

/// The real GNOME Keyring (`gnome-keyring-daemon`, Debian's `gnome-keyring`)
/// serving the Secret Service on a test's bus, with a home of its own.
///
/// `unlockedLogin`: started with `--unlock` (the password on its standard
/// input), as PAM starts it at a graphical login, so an unlocked "login"
/// collection is the default; otherwise it starts with no collection at
/// all, as on a fresh account or a session that never unlocked one. There
/// is no prompter on a test's bus (the bus is hermetic), so every prompt
/// the keyring shows is dismissed at once, as a listener pressing Cancel.
public final class GnomeKeyring: Sendable {
    public static let executable = "/usr/bin/gnome-keyring-daemon"
    /// The login collection's password, with `unlockedLogin`.
    public static let loginPassword = "keyring-login-pw"
    private let process: Process
    public let home: URL

    private init(process: Process, home: URL) {
        self.process = process
        self.home = home
    }

    /// Whether the daemon is installed here.
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    public static func start(on bus: PrivateBus, unlockedLogin: Bool) async throws -> GnomeKeyring {
        let home = try Fixtures.temporaryDirectory()
        let runtime = home.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--foreground", "--components=secrets"] + (unlockedLogin ? ["--unlock"] : [])
        process.environment = ProcessInfo.processInfo.environment.merging(bus.environment) { $1 }.merging([
            "HOME": home.path, "XDG_RUNTIME_DIR": runtime.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
        ]) { $1 }
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        // What it says goes to a file, shown only when it never serves.
        let log = home.appendingPathComponent("daemon.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        if unlockedLogin { input.fileHandleForWriting.write(Data(loginPassword.utf8)) }
        try? input.fileHandleForWriting.close()
        let keyring = GnomeKeyring(process: process, home: home)
        let connection = try await DBusConnection.connect(address: bus.address)
        // It serves within a second alone; with every parallel suite running on two cores it
        // took over the 20 s this waited, once in session 22's runs and once in session 23's CI: a minute, then why.
        do {
            try await waitFor(timeout: .seconds(60)) { (try? await connection.nameHasOwner("org.freedesktop.secrets")) == true }
        } catch {
            let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw TestSupportError("gnome-keyring-daemon did not serve org.freedesktop.secrets within 60 s (running: \(process.isRunning)); "
                                   + "it said: \(said.suffix(2000))")
        }
        return keyring
    }

    /// Locks every collection, as the screen lock or `secret-tool lock` does.
    public func lockAll(on bus: PrivateBus) async throws {
        let connection = try await DBusConnection.connect(address: bus.address)
        let collections = try await connection.call(
            destination: "org.freedesktop.secrets", path: DBusObjectPath(validLiteral: "/org/freedesktop/secrets"),
            interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string("org.freedesktop.Secret.Service"), .string("Collections")]).first?.unwrapped.arrayValue ?? []
        _ = try await connection.call(destination: "org.freedesktop.secrets", path: DBusObjectPath(validLiteral: "/org/freedesktop/secrets"),
                                      interface: "org.freedesktop.Secret.Service", member: "Lock",
                                      arguments: [.array(.objectPath, collections)])
    }

    /// The labels of the items the keyring holds for Pods, read through the Secret Service.
    public func podsItemLabels(on bus: PrivateBus) async throws -> [String] {
        let connection = try await DBusConnection.connect(address: bus.address)
        let found = try await connection.call(
            destination: "org.freedesktop.secrets", path: DBusObjectPath(validLiteral: "/org/freedesktop/secrets"),
            interface: "org.freedesktop.Secret.Service", member: "SearchItems",
            arguments: [.dictionary(key: .string, value: .string, [DBusDictionaryEntry(.string("application"), .string("org.pods.Pods"))])])
        let items = found.flatMap { $0.arrayValue?.compactMap(\.objectPathValue) ?? [] }
        var labels: [String] = []
        for item in items {
            let label = try await connection.call(destination: "org.freedesktop.secrets", path: item,
                                                  interface: "org.freedesktop.DBus.Properties", member: "Get",
                                                  arguments: [.string("org.freedesktop.Secret.Item"), .string("Label")])
            labels.append(label.first?.unwrapped.stringValue ?? "")
        }
        return labels.sorted()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: home)
    }
}
