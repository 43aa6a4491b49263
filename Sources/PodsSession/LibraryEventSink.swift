import PodsHTTP
import PodsLibrary

/// Where the session tells clients what changed in the library (the
/// library interface's signals, in podsd).
public protocol LibraryEventSink: Sendable {
    func podcastsChanged()
    func episodesChanged(_ podcastID: Int64)
    func statusChanged(_ episodeID: Int64)
    func queueChanged()
    func downloadsChanged(_ episodeID: Int64)
    func refreshProgress(_ done: Int, _ total: Int)
}

/// Where the session announces the episodes a refresh found (the
/// desktop's notifications, in podsd).
public protocol NewEpisodeAnnouncer: Sendable {
    func announce(_ summaries: [RefreshSummary]) async
}

/// Where passwords are kept when the desktop keeps them (the Secret
/// Service, in podsd): every entry is a user name and password under a key.
public protocol SecretKeeper: Sendable {
    /// What is kept where it can be read without asking the listener, and
    /// whether more is kept locked away.
    func loadAll() async throws(SessionError) -> (found: [String: HTTPCredentials], lockedAway: Bool)
    /// Everything, asking the listener (the keyring's prompt) to unlock what is locked.
    func unlockAll() async throws(SessionError) -> [String: HTTPCredentials]
    /// Keeps `credentials` under `key`, making or unlocking the keyring first when it must (with its prompt).
    func store(_ credentials: HTTPCredentials, key: String) async throws(SessionError)
}
