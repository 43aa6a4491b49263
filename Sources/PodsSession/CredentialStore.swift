import Foundation
import Logging
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
package final class CredentialStore: Sendable {
    private let backend: Backend
    private let logger: Logger
    /// Every origin's credentials, read once at start and kept as they change
    /// (each transfer asks, from libcurl's thread); includes one being tried.
    private let known = Mutex<[String: HTTPCredentials]>([:])
    /// Only the credentials that worked: what is written (a password still
    /// being tried never reaches the file, whatever another save does meanwhile).
    private let kept = Mutex<[String: HTTPCredentials]>([:])

    package enum Backend: Sendable {
        case secretService(any SecretKeeper)
        case file(URL)
        /// A file that could not be read nor moved aside: nothing is written to it.
        case unwritable(URL)
    }

    private init(backend: Backend, logger: Logger) {
        self.backend = backend
        self.logger = logger
    }

    /// The desktop's keeper of secrets when there is one (`secrets`), else `file`.
    package static func open(secrets: (any SecretKeeper)?, file: URL, logger: Logger) async -> CredentialStore {
        if let secrets {
            let store = CredentialStore(backend: .secretService(secrets), logger: logger)
            do throws(SessionError) {
                let found = try await secrets.loadAll()
                store.known.withLock { $0 = found }
                store.kept.withLock { $0 = found }
            } catch {
                logger.warning("the Secret Service did not give Pods' passwords: \(error.message)")
            }
            return store
        }
        let store = CredentialStore(backend: .file(file), logger: logger)
        guard FileManager.default.fileExists(atPath: file.path) else { return store }
        guard let data = FileManager.default.contents(atPath: file.path),
              let stored = try? JSONDecoder().decode([String: [String: String]].self, from: data) else {
            // Never taken as empty: the next save would write over every password in it.
            let aside = PrivateFile.setAside(file)
            logger.error("\(file.path) cannot be read as Pods' credentials; \(aside.map { "moved to \($0.path)" } ?? "left as it is, and not written") so that no password in it is lost")
            return aside == nil ? CredentialStore(backend: .unwritable(file), logger: logger) : store
        }
        var found: [String: HTTPCredentials] = [:]
        for (origin, entry) in stored {
            if let user = entry["user"], let password = entry["password"] {
                found[origin] = HTTPCredentials(user: user, password: password)
            }
        }
        store.known.withLock { $0 = found }
        store.kept.withLock { $0 = found }
        return store
    }

    /// Where they are kept, for messages.
    package var place: String {
        switch backend {
        case .secretService: "the Secret Service"
        case .file(let url), .unwritable(let url): url.path
        }
    }

    /// The credentials for `url`'s origin (what every transfer asks).
    package func credentials(for url: String) -> HTTPCredentials? {
        guard let origin = HTTPClient.origin(of: url) else { return nil }
        return known.withLock { $0[origin] }
    }

    /// `credentials(for:)` as `HTTPClient.Options.credentials` asks for it.
    package var provider: @Sendable (String) -> HTTPCredentials? {
        { [self] url in credentials(for: url) }
    }

    /// Uses `credentials` for `url`'s origin from now on, in memory only
    /// (until `keep` or `restore`): a subscription tries them first.
    /// Returns what the origin used before, for `restore`.
    package func use(_ credentials: HTTPCredentials, for url: String) -> HTTPCredentials? {
        guard let origin = HTTPClient.origin(of: url) else { return nil }
        return known.withLock { $0.updateValue(credentials, forKey: origin) }
    }

    /// Puts back what `url`'s origin used before a `use` whose try failed:
    /// a wrong password for one feed leaves the working one of the other
    /// feeds on the same host in place.
    package func restore(_ previous: HTTPCredentials?, for url: String) {
        guard let origin = HTTPClient.origin(of: url) else { return }
        known.withLock { $0[origin] = previous }
    }

    /// Keeps `url`'s origin's credentials where they belong.
    package func keep(_ url: String) async throws(SessionError) {
        guard let origin = HTTPClient.origin(of: url), let credentials = known.withLock({ $0[origin] }) else { return }
        try await persist(credentials, key: origin)
    }

    // MARK: - The sync server's login

    /// The sync server's login is kept under a key of its own, which no
    /// transfer's origin matches: feeds on the same host never get it.
    package static func syncKey(_ server: String) -> String { "sync " + (HTTPClient.origin(of: server) ?? server) }

    package func credentials(forKey key: String) -> HTTPCredentials? {
        known.withLock { $0[key] }.flatMap { $0.password.isEmpty ? nil : $0 }
    }

    package func keep(_ credentials: HTTPCredentials, forKey key: String) async throws(SessionError) {
        known.withLock { $0[key] = credentials }
        try await persist(credentials, key: key)
    }

    /// Forgets the password kept under `key` (the Secret Service's item is
    /// emptied; the file loses the entry).
    package func remove(key: String) async throws(SessionError) {
        known.withLock { _ = $0.removeValue(forKey: key) }
        guard let old = kept.withLock({ $0.removeValue(forKey: key) }) else { return }
        try await persist(HTTPCredentials(user: old.user, password: ""), key: key, removing: true)
    }

    /// Keeps `credentials` (which worked) under `key`: in the Secret Service,
    /// or in the file, written whole from what worked, one writer at a time.
    private func persist(_ credentials: HTTPCredentials, key: String, removing: Bool = false) async throws(SessionError) {
        if !removing { kept.withLock { $0[key] = credentials } }
        switch backend {
        case .secretService(let service):
            try await service.store(credentials, key: key)
        case .file(let file):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            do throws(SettingsError) {
                // The snapshot is taken inside the file's lock: the last write holds every change before it.
                try PrivateFile.update(file) { _ throws(SettingsError) in
                    let all = kept.withLock { $0 }.mapValues { ["user": $0.user, "password": $0.password] }
                    guard let data = try? encoder.encode(all) else { throw SettingsError("cannot encode the credentials") }
                    return data
                }
            } catch {
                throw SessionError.failed(error.message)
            }
        case .unwritable(let file):
            throw SessionError.failed("\(file.path) cannot be read, so Pods does not write passwords into it; move it away and try again")
        }
    }
}
