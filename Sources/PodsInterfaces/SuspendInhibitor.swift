import Logging
import PodsDBus
import PodsPlayer
import PodsSession
import Synchronization

/// Keeps the session from suspending while Pods plays: podsd has no window,
/// so without this GNOME's and KDE's automatic suspend (on battery after
/// 15 idle minutes, by default) cut an episode short.
///
/// While the player is Playing it holds an inhibitor with the suspend flag,
/// asked of the first that answers: the XDG desktop portal
/// (`org.freedesktop.portal.Inhibit`, flag 4, with a reason naming the
/// episode), GNOME's session manager (`org.gnome.SessionManager.Inhibit`,
/// flag 4), or `org.freedesktop.PowerManagement.Inhibit` (KDE's). Any other
/// state releases it. It is never a logind `block` lock: the lid and the
/// power button still suspend. Each change is applied in order on a task
/// of its own, so the player never waits for the desktop.
package final class SuspendInhibitor: SessionService {
    /// The portal's and GNOME's "suspend" flag.
    package static let suspendFlag: UInt32 = 4

    private enum Held: Sendable {
        case portal(DBusObjectPath)
        case gnome(UInt32)
        case powerManagement(UInt32)
    }

    private struct State {
        /// What the player asks for: nil to release, else the reason.
        var wanted: String?
        var held: Held?
        var heldReason: String?
        var finished = false
    }

    private let connection: DBusConnection
    private let logger: Logger
    private let state = Mutex(State())
    private let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation
    private let toldNone = Mutex(false)

    /// Follows `controller`'s states from here on.
    package init(connection: DBusConnection, controller: PlayerController, logger: Logger) {
        self.connection = connection
        self.logger = logger
        (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        controller.follow { [self] change in
            if case .state(let state, _) = change { follow(state) }
        }
    }

    /// Follows the player: called with every published state (on the
    /// controller's actor; it only records what is wanted).
    private func follow(_ playerState: PlayerState) {
        let reason: String? = playerState.status == .playing
            ? "Playing \(playerState.track.map { "“\($0.title.prefix(120))”" } ?? "a podcast")" : nil
        let differs = state.withLock { state in
            guard state.wanted != reason else { return false }
            state.wanted = reason
            return true
        }
        if differs { changed.yield() }
    }

    /// Applies what is wanted until `finish()`, then releases what is held.
    package func run() async {
        for await _ in changes {
            if state.withLock({ $0.finished }) { break }
            await apply()
        }
        await release()
    }

    /// Makes `run()` release what is held and end.
    package func finish() {
        state.withLock { state in
            state.wanted = nil
            state.finished = true
        }
        changed.yield()
        changed.finish()
    }

    private func apply() async {
        let (wanted, held, heldReason) = state.withLock { ($0.wanted, $0.held, $0.heldReason) }
        if let wanted {
            guard held == nil || heldReason != wanted else { return }
            await release()
            await inhibit(reason: wanted)
        } else if held != nil {
            await release()
        }
    }

    private func inhibit(reason: String) async {
        if let handle = await ask(Self.portal, member: "Inhibit", arguments: [
            .string(""), .uint32(Self.suspendFlag), .variantDictionary(["reason": .string(reason)]),
        ])?.first?.objectPathValue {
            hold(.portal(handle), reason)
        } else if let cookie = await ask(Self.gnome, member: "Inhibit", arguments: [
            .string("org.pods.Pods"), .uint32(0), .string(reason), .uint32(Self.suspendFlag),
        ]).flatMap(Self.cookie) {
            hold(.gnome(cookie), reason)
        } else if let cookie = await ask(Self.powerManagement, member: "Inhibit", arguments: [
            .string("Pods"), .string(reason),
        ]).flatMap(Self.cookie) {
            hold(.powerManagement(cookie), reason)
        } else if !toldNone.withLock({ told in defer { told = true }; return told }) {
            logger.info("no desktop portal, GNOME session or power manager answers: nothing keeps the machine awake while Pods plays")
        }
    }

    /// A `u` cookie answered by `Inhibit`.
    private static func cookie(_ reply: [DBusValue]) -> UInt32? {
        if case .uint32(let cookie)? = reply.first?.unwrapped { return cookie }
        return nil
    }

    private func hold(_ held: Held, _ reason: String) {
        state.withLock { state in
            state.held = held
            state.heldReason = reason
        }
    }

    private func release() async {
        guard let held = state.withLock({ state -> Held? in
            defer { state.held = nil; state.heldReason = nil }
            return state.held
        }) else { return }
        switch held {
        case .portal(let handle):
            _ = try? await connection.call(destination: Self.portal.name, path: handle, interface: "org.freedesktop.portal.Request",
                                           member: "Close", timeout: .seconds(5))
        case .gnome(let cookie):
            _ = await ask(Self.gnome, member: "Uninhibit", arguments: [.uint32(cookie)])
        case .powerManagement(let cookie):
            _ = await ask(Self.powerManagement, member: "UnInhibit", arguments: [.uint32(cookie)])
        }
    }

    private struct Service: Sendable {
        let name: String
        let path: DBusObjectPath
        let interface: String
    }

    private static let portal = Service(name: "org.freedesktop.portal.Desktop", path: DBusObjectPath(validLiteral: "/org/freedesktop/portal/desktop"),
                                        interface: "org.freedesktop.portal.Inhibit")
    private static let gnome = Service(name: "org.gnome.SessionManager", path: DBusObjectPath(validLiteral: "/org/gnome/SessionManager"),
                                       interface: "org.gnome.SessionManager")
    private static let powerManagement = Service(name: "org.freedesktop.PowerManagement",
                                                 path: DBusObjectPath(validLiteral: "/org/freedesktop/PowerManagement/Inhibit"),
                                                 interface: "org.freedesktop.PowerManagement.Inhibit")

    /// Calls `service` when it runs or the bus can start it; nil when it
    /// cannot be asked or refuses.
    private func ask(_ service: Service, member: String, arguments: [DBusValue]) async -> [DBusValue]? {
        let running = (try? await connection.nameHasOwner(service.name)) == true
        if !running, (try? await connection.activatableNames())?.contains(service.name) != true { return nil }
        do throws(DBusError) {
            return try await connection.call(destination: service.name, path: service.path, interface: service.interface,
                                             member: member, arguments: arguments, timeout: .seconds(running ? 5 : 15))
        } catch {
            logger.debug("\(service.name) \(member): \(error.message)")
            return nil
        }
    }
}
