import Foundation
import Logging
import PodsDBus
import PodsHTTP
import PodsSettings
import Synchronization

/// Where private feeds' user names and passwords are kept, apart from
/// their URLs (which `pods podcasts` prints and OPML exports): the
/// desktop's Secret Service (`org.freedesktop.secrets`, GNOME Keyring or
/// KWallet) when one is on the bus, else a file only the user can read
/// (mode 0600). They are kept per origin (scheme, host, port), so a feed's
/// enclosures on the same host are fetched with them too; libcurl never
/// sends them to another host.
final class CredentialStore: Sendable {
    private let backend: Backend
    private let logger: Logger
    /// Every origin's credentials, read once at start and kept as they change
    /// (each transfer asks, from libcurl's thread).
    private let known = Mutex<[String: HTTPCredentials]>([:])

    enum Backend: Sendable {
        case secretService(SecretService)
        case file(URL)
    }

    private init(backend: Backend, logger: Logger) {
        self.backend = backend
        self.logger = logger
    }

    /// The Secret Service when one is on `connection`'s bus or the bus starts
    /// one on demand (GNOME Keyring and KWallet install activation files,
    /// and a desktop session often starts them only at the first call), else `file`.
    static func open(connection: DBusConnection, file: URL, logger: Logger) async -> CredentialStore {
        if let service = await secretService(on: connection, logger: logger) {
            let store = CredentialStore(backend: .secretService(service), logger: logger)
            do throws(DBusError) {
                let found = try await service.loadAll()
                store.known.withLock { $0 = found }
            } catch {
                logger.warning("the Secret Service did not give Pods' passwords: \(error.message)")
            }
            return store
        }
        let store = CredentialStore(backend: .file(file), logger: logger)
        if let data = FileManager.default.contents(atPath: file.path),
           let stored = try? JSONDecoder().decode([String: [String: String]].self, from: data) {
            store.known.withLock { known in
                for (origin, entry) in stored {
                    if let user = entry["user"], let password = entry["password"] {
                        known[origin] = HTTPCredentials(user: user, password: password)
                    }
                }
            }
        }
        return store
    }

    private static func secretService(on connection: DBusConnection, logger: Logger) async -> SecretService? {
        let running = (try? await connection.nameHasOwner(SecretService.busName)) == true
        if !running {
            guard (try? await connection.activatableNames())?.contains(SecretService.busName) == true else { return nil }
        }
        do throws(DBusError) {
            // The first call starts an activatable one; a keyring that does not come up is not waited for long.
            return try await SecretService.open(connection, timeout: .seconds(running ? 25 : 10))
        } catch {
            logger.warning("the Secret Service did not open a session (\(error.message)); passwords are kept in a private file instead")
            return nil
        }
    }

    /// Where they are kept, for messages.
    var place: String {
        switch backend {
        case .secretService: "the Secret Service"
        case .file(let url): url.path
        }
    }

    /// The credentials for `url`'s origin (what every transfer asks).
    func credentials(for url: String) -> HTTPCredentials? {
        guard let origin = HTTPClient.origin(of: url) else { return nil }
        return known.withLock { $0[origin] }
    }

    /// `credentials(for:)` as `HTTPClient.Options.credentials` asks for it.
    var provider: @Sendable (String) -> HTTPCredentials? {
        { [self] url in credentials(for: url) }
    }

    /// Uses `credentials` for `url`'s origin from now on, in memory only
    /// (until `keep` or `restore`): a subscription tries them first.
    /// Returns what the origin used before, for `restore`.
    func use(_ credentials: HTTPCredentials, for url: String) -> HTTPCredentials? {
        guard let origin = HTTPClient.origin(of: url) else { return nil }
        return known.withLock { $0.updateValue(credentials, forKey: origin) }
    }

    /// Puts back what `url`'s origin used before a `use` whose try failed:
    /// a wrong password for one feed leaves the working one of the other
    /// feeds on the same host in place.
    func restore(_ previous: HTTPCredentials?, for url: String) {
        guard let origin = HTTPClient.origin(of: url) else { return }
        known.withLock { $0[origin] = previous }
    }

    /// Keeps `url`'s origin's credentials where they belong.
    func keep(_ url: String) async throws(DBusError) {
        guard let origin = HTTPClient.origin(of: url), let credentials = known.withLock({ $0[origin] }) else { return }
        try await persist(credentials, key: origin)
    }

    // MARK: - The sync server's login

    /// The sync server's login is kept under a key of its own, which no
    /// transfer's origin matches: feeds on the same host never get it.
    static func syncKey(_ server: String) -> String { "sync " + (HTTPClient.origin(of: server) ?? server) }

    func credentials(forKey key: String) -> HTTPCredentials? {
        known.withLock { $0[key] }.flatMap { $0.password.isEmpty ? nil : $0 }
    }

    func keep(_ credentials: HTTPCredentials, forKey key: String) async throws(DBusError) {
        known.withLock { $0[key] = credentials }
        try await persist(credentials, key: key)
    }

    /// Forgets the password kept under `key` (the Secret Service's item is
    /// emptied; the file loses the entry).
    func remove(key: String) async throws(DBusError) {
        guard let old = known.withLock({ $0.removeValue(forKey: key) }) else { return }
        try await persist(HTTPCredentials(user: old.user, password: ""), key: key)
    }

    private func persist(_ credentials: HTTPCredentials, key: String) async throws(DBusError) {
        switch backend {
        case .secretService(let service):
            try await service.store(credentials, origin: key)
        case .file(let file):
            let all = known.withLock { $0 }.mapValues { ["user": $0.user, "password": $0.password] }
            try Self.writePrivately(all, to: file)
        }
    }

    /// Writes the file with mode 0600 from its first byte.
    private static func writePrivately(_ entries: [String: [String: String]], to file: URL) throws(DBusError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let data = try? encoder.encode(entries) else { throw DBusError.failed("cannot encode the credentials") }
        do throws(SettingsError) { try PrivateFile.write(data, to: file) } catch { throw DBusError.failed(error.message) }
    }
}
