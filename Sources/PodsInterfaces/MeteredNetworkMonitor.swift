import Logging
import PodsDBus
import PodsSession
import Synchronization

/// Whether the network costs by the byte (a phone's hotspot, a metered
/// Wi-Fi), as the desktop knows it: the XDG desktop portal's
/// `NetworkMonitor` (`GetMetered`, and `changed` when it may have changed),
/// else NetworkManager's `Metered` on the system bus (yes, or guessed yes).
/// `changed` hears each new answer; with neither, the network is taken as
/// not metered, and podsd says so once.
package final class MeteredNetworkMonitor: SessionService {
    private static let portal = "org.freedesktop.portal.Desktop"
    private static let portalPath = DBusObjectPath(validLiteral: "/org/freedesktop/portal/desktop")
    private static let portalInterface = "org.freedesktop.portal.NetworkMonitor"
    private static let networkManager = "org.freedesktop.NetworkManager"
    private static let networkManagerPath = DBusObjectPath(validLiteral: "/org/freedesktop/NetworkManager")

    private let session: DBusConnection
    private let logger: Logger
    private let changed: @Sendable (Bool) async -> Void
    private let current = Mutex(false)
    private let ended = Mutex<(system: DBusConnection?, following: Task<Void, Never>?, finished: Bool)>((nil, nil, false))

    package init(session: DBusConnection, logger: Logger, changed: @escaping @Sendable (Bool) async -> Void) {
        self.session = session
        self.logger = logger
        self.changed = changed
    }

    /// The last answer.
    package var isMetered: Bool { current.withLock { $0 } }

    /// Follows the portal, else NetworkManager, until `finish()`.
    package func run() async {
        let following = Task { [self] in
            if await followPortal() { return }
            if await followNetworkManager() { return }
            if !Task.isCancelled {
                logger.info("neither the desktop portal nor NetworkManager says whether the network is metered: downloads run on any network")
            }
        }
        let finished = ended.withLock { ended in
            ended.following = following
            return ended.finished
        }
        if finished { following.cancel() }
        await following.value
    }

    package func finish() {
        let (system, following) = ended.withLock { ended in
            ended.finished = true
            return (ended.system, ended.following)
        }
        following?.cancel()
        system?.close()
    }

    /// Each state is logged at most once a minute: a network flapping between
    /// the two wrote a hundred lines a second into the journal (ADVERSARIAL-5, 9).
    private static let logEvery = Duration.seconds(60)
    private let logged = Mutex<[Bool: ContinuousClock.Instant]>([:])

    private func report(_ metered: Bool) async {
        let before = current.withLock { current in
            defer { current = metered }
            return current
        }
        if before != metered {
            let now = ContinuousClock.now
            let due = logged.withLock { logged in
                guard logged[metered].map({ now - $0 >= Self.logEvery }) ?? true else { return false }
                logged[metered] = now
                return true
            }
            if due { logger.info(metered ? "the network is metered: downloads wait" : "the network is not metered") }
        }
        await changed(metered)
    }

    // MARK: - The portal

    private func followPortal() async -> Bool {
        guard let changes = try? await session.signals(matching: DBusSignalMatch(
            path: Self.portalPath, interface: Self.portalInterface, member: "changed")) else { return false }
        guard let first = await portalMetered() else { return false }
        await report(first)
        for await _ in changes {
            if ended.withLock({ $0.finished }) { break }
            if let metered = await portalMetered() { await report(metered) }
        }
        return true
    }

    private func portalMetered() async -> Bool? {
        let running = (try? await session.nameHasOwner(Self.portal)) == true
        if !running, (try? await session.activatableNames())?.contains(Self.portal) != true { return nil }
        let reply = try? await session.call(destination: Self.portal, path: Self.portalPath, interface: Self.portalInterface,
                                            member: "GetMetered", timeout: .seconds(running ? 5 : 15))
        return reply?.first?.boolValue
    }

    // MARK: - NetworkManager

    private func followNetworkManager() async -> Bool {
        guard let system = try? await DBusConnection.system() else { return false }
        let finished = ended.withLock { ended in
            ended.system = system
            return ended.finished
        }
        defer { system.close() }
        guard !finished, let changes = try? await system.signals(matching: DBusSignalMatch(
            sender: Self.networkManager, path: Self.networkManagerPath, interface: "org.freedesktop.DBus.Properties",
            member: "PropertiesChanged")) else { return false }
        guard let reply = try? await system.call(
            destination: Self.networkManager, path: Self.networkManagerPath, interface: "org.freedesktop.DBus.Properties",
            member: "Get", arguments: [.string(Self.networkManager), .string("Metered")], timeout: .seconds(10)),
            let value = reply.first.flatMap(Self.meteredValue) else { return false }
        await report(value)
        for await signal in changes {
            guard signal.arguments.first?.stringValue == Self.networkManager,
                  let metered = signal.arguments.dropFirst().first?.stringKeyedDictionary?["Metered"].flatMap(Self.meteredValue) else { continue }
            await report(metered)
        }
        return true
    }

    /// NetworkManager's `NMMetered`: 1 yes, 3 guessed yes; 0 unknown, 2 no, 4 guessed no.
    private static func meteredValue(_ value: DBusValue) -> Bool? {
        guard case .uint32(let code) = value.unwrapped else { return nil }
        return code == 1 || code == 3
    }
}
