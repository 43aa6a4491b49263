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
    /// Set once more at most: the file's, until a keyring that answered late takes over.
    private let backendNow: Mutex<Backend>
    private var backend: Backend { backendNow.withLock { $0 } }
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

    /// Whether the log said once why passwords go to the file.
    private let toldFile = Mutex(false)

    private init(backend: Backend, logger: Logger) {
        self.backendNow = Mutex(backend)
        self.logger = logger
    }

    /// How long a start waits for the keyring before podsd takes its names
    /// on the bus. A keyring that answers at all answers in milliseconds; one
    /// that hangs held podsd's names 26 s, past D-Bus activation's 25 s, so
    /// every `pods` command said podsd was not running (ADVERSARIAL-5, 3).
    package static let startWait = Duration.seconds(1)

    /// `open` with the keyring looked up by `find`, waited for `startWait`
    /// at most: a keyring slower than that starts podsd on the file and
    /// takes over when it answers (its passwords are used from then on, and
    /// the file's move into it).
    package static func open(finding find: @escaping @Sendable () async -> (any SecretKeeper)?, file: URL, logger: Logger,
                             wait: Duration = startWait) async -> CredentialStore {
        let lookup = Task { () -> (any SecretKeeper)? in await find() }
        // Whichever comes first, the answer or the time (a Task's value cannot be awaited with a limit:
        // its waiter is not cancelled). The time is dispatch's, on the monotonic clock: the sync tests run
        // a podsd under libfaketime, whose faked continuous clock held a Task.sleep here for the hour it fakes.
        let once = ResumeOnce()
        let inTime = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            once.set(continuation)
            Task { _ = await lookup.value; once.resume(true) }
            let milliseconds = Int(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { once.resume(false) }
        }
        if inTime { return await open(secrets: await lookup.value, file: file, logger: logger) }
        logger.warning("the Secret Service has not answered within \(wait); podsd starts with \(file.path) and takes the keyring when it answers")
        let store = await open(secrets: nil, file: file, logger: logger)
        Task { [store] in
            guard let secrets = await lookup.value else { return }
            await store.takeOver(secrets, from: file)
        }
        return store
    }

    /// A keyring that answered after podsd started: its passwords join those in use, it keeps
    /// them from now on, and the file's move into it.
    private func takeOver(_ secrets: any SecretKeeper, from file: URL) async {
        guard case .file = backend else { return }  // an unreadable file stays as it was
        do throws(SessionError) {
            let (found, lockedAway) = try await secrets.loadAll()
            adopt(found.mapValues(HTTPCredentials.init))
            backendNow.withLock { $0 = .secretService(secrets) }
            logger.info("the Secret Service answered: it keeps Pods' passwords from now on")
            if lockedAway { await unlock(secrets) }
            await moveIntoKeyring(from: file, secrets)
        } catch {
            logger.warning("the Secret Service did not give Pods' passwords (\(error.message)); they stay in \(file.path)")
        }
    }

    /// The desktop's keeper of secrets when there is one (`secrets`) and it
    /// gives Pods' passwords, else `file` (with one log line saying why). A
    /// password still in the file moves into the keyring when one appears.
    package static func open(secrets: (any SecretKeeper)?, file: URL, logger: Logger) async -> CredentialStore {
        if let secrets {
            do throws(SessionError) {
                let (kept, lockedAway) = try await secrets.loadAll()
                let store = CredentialStore(backend: .secretService(secrets), logger: logger)
                store.adopt(kept.mapValues(HTTPCredentials.init))
                // What waits for the listener (a locked keyring's prompt) never holds up podsd's start.
                Task { [store] in
                    if lockedAway { await store.unlock(secrets) }
                    await store.moveIntoKeyring(from: file, secrets)
                }
                return store
            } catch {
                logger.warning("the Secret Service did not give Pods' passwords (\(error.message)); they are kept in \(file.path) instead")
            }
        }
        let store = CredentialStore(backend: .file(file), logger: logger)
        switch readFile(file, logger: logger) {
        case .unreadable(let aside): return aside ? store : CredentialStore(backend: .unwritable(file), logger: logger)
        case .read(let found):
            store.known.withLock { $0 = found }
            store.kept.withLock { $0 = found }
            return store
        }
    }

    private enum FileContents {
        case read([String: HTTPCredentials])
        /// Not Pods' credentials: moved aside (true) or left where it is.
        case unreadable(movedAside: Bool)
    }

    /// The file's credentials (none when there is no file). A file that
    /// cannot be read is never taken as empty: the next save would write
    /// over every password in it, so it is moved aside.
    private static func readFile(_ file: URL, logger: Logger) -> FileContents {
        guard FileManager.default.fileExists(atPath: file.path) else { return .read([:]) }
        guard let data = FileManager.default.contents(atPath: file.path),
              let stored = try? JSONDecoder().decode([String: [String: String]].self, from: data) else {
            let aside = PrivateFile.setAside(file)
            logger.error("\(file.path) cannot be read as Pods' credentials; \(aside.map { "moved to \($0.path)" } ?? "left as it is, and not written") so that no password in it is lost")
            return .unreadable(movedAside: aside != nil)
        }
        var found: [String: HTTPCredentials] = [:]
        for (origin, entry) in stored {
            if let user = entry["user"], let password = entry["password"] {
                found[origin] = HTTPCredentials(user: user, password: password)
            }
        }
        return .read(found)
    }

    /// Logins the keyring gave: used and kept from now on, beside (never over) those already known.
    private func adopt(_ logins: [String: HTTPCredentials]) {
        known.withLock { $0.merge(logins) { current, _ in current } }
        kept.withLock { $0.merge(logins) { current, _ in current } }
    }

    /// Asks the keyring to unlock what Pods keeps there (its prompt).
    private func unlock(_ secrets: any SecretKeeper) async {
        do throws(SessionError) {
            adopt(try await secrets.unlockAll().mapValues(HTTPCredentials.init))
        } catch {
            logger.warning("Pods' passwords stay locked in the keyring (\(error.message)); private feeds fail until it is unlocked")
        }
    }

    /// Moves the passwords kept in `file` (from a start without a keyring)
    /// into `secrets`; what the keyring refuses stays in the file, and is used.
    private func moveIntoKeyring(from file: URL, _ secrets: any SecretKeeper) async {
        guard case .read(let inFile) = Self.readFile(file, logger: logger), !inFile.isEmpty else { return }
        var left: [String: HTTPCredentials] = [:]
        for (key, credentials) in inFile.sorted(by: { $0.key < $1.key }) {
            do throws(SessionError) {
                try await secrets.store(KeptLogin(user: credentials.user, password: credentials.password), key: key)
                known.withLock { $0[key] = credentials }
                kept.withLock { $0[key] = credentials }
            } catch {
                left[key] = credentials
                known.withLock { if $0[key] == nil { $0[key] = credentials } }
                logger.warning("the password for \(key) stays in \(file.path): \(error.message)")
            }
        }
        do throws(SettingsError) {
            if left.isEmpty {
                try? FileManager.default.removeItem(at: file)
            } else {
                try PrivateFile.update(file) { _ throws(SettingsError) in try Self.encoded(left) }
            }
            logger.notice("moved \(inFile.count - left.count) of \(inFile.count) passwords from \(file.path) into the Secret Service")
        } catch {
            logger.error("the passwords moved into the Secret Service are still in \(file.path): \(error.message)")
        }
    }

    private static func encoded(_ credentials: [String: HTTPCredentials]) throws(SettingsError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let data = try? encoder.encode(credentials.mapValues { ["user": $0.user, "password": $0.password] }) else {
            throw SettingsError("cannot encode the credentials")
        }
        return data
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
            try await service.store(KeptLogin(user: credentials.user, password: credentials.password), key: key)
        case .file(let file):
            if !toldFile.withLock({ told in defer { told = true }; return told }) {
                logger.info("no Secret Service keeps Pods' passwords: they are kept in \(file.path), which only you can read")
            }
            do throws(SettingsError) {
                // The snapshot is taken inside the file's lock: the last write holds every change before it.
                try PrivateFile.update(file) { _ throws(SettingsError) in try Self.encoded(kept.withLock { $0 }) }
            } catch {
                throw SessionError.failed(error.message)
            }
        case .unwritable(let file):
            throw SessionError.failed("\(file.path) cannot be read, so Pods does not write passwords into it; move it away and try again")
        }
    }
}

extension HTTPCredentials {
    init(_ login: KeptLogin) { self.init(user: login.user, password: login.password) }
}

/// A continuation resumed by the first of those who try.
private final class ResumeOnce: Sendable {
    private let continuation = Mutex<CheckedContinuation<Bool, Never>?>(nil)
    func set(_ waiting: CheckedContinuation<Bool, Never>) { continuation.withLock { $0 = waiting } }
    func resume(_ value: Bool) { continuation.withLock { $0.take() }?.resume(returning: value) }
}
