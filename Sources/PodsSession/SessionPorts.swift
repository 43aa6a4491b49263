import PodsHTTP
import PodsLibrary

/// Where the session announces the episodes a refresh found (the
/// desktop's notifications, in podsd).
public protocol NewEpisodeAnnouncer: Sendable {
    func announce(_ summaries: [RefreshSummary]) async
    /// Follows what the listener does with the announcements, until `finish()`.
    func run() async
    func finish()
}

/// A user name and password, as a `SecretKeeper` keeps them.
public struct KeptLogin: Sendable, Equatable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

/// Where passwords are kept when the desktop keeps them (the Secret
/// Service, in podsd): every entry is a user name and password under a key.
public protocol SecretKeeper: Sendable {
    /// What is kept where it can be read without asking the listener, and
    /// whether more is kept locked away.
    func loadAll() async throws(SessionError) -> (found: [String: KeptLogin], lockedAway: Bool)
    /// Everything, asking the listener (the keyring's prompt) to unlock what is locked.
    func unlockAll() async throws(SessionError) -> [String: KeptLogin]
    /// Keeps `login` under `key`, making or unlocking the keyring first when it must (with its prompt).
    func store(_ login: KeptLogin, key: String) async throws(SessionError)
}
