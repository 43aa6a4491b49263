import PodsDBus
import PodsProtocol

/// Drives podsd's own player interface (`org.pods.Player1`): chapters,
/// skips, the sleep timer, and what `pods status` adds to MPRIS.
public struct PodsPlayerClient: Sendable {
    private let player: PlayerClient

    public init(_ player: PlayerClient) { self.player = player }

    // MARK: - Chapters

    /// An episode's chapters (items in `PlayerItems.chapter`); 0 for the loaded one.
    public func chapters(episode: Int64) async throws(PlayerClient.Failure) -> [DBusValue] {
        // Another episode's chapters may wait for its tag's bytes to download.
        try await single(.chapters, [.int64(episode)]).arrayValue ?? []
    }

    /// Jumps to `next`, `prev` or a chapter number (from 1).
    public func goToChapter(_ target: String) async throws(PlayerClient.Failure) {
        _ = try await call(.goToChapter, [.string(target)])
    }

    // MARK: - Skips and the sleep timer

    /// Skips `forward` or `back` by `seconds` (nil: the configured interval).
    public func skip(_ direction: String, seconds: Double?) async throws(PlayerClient.Failure) {
        _ = try await call(.skip, [.string(direction), .double(seconds ?? 0)])
    }

    /// Sets the sleep timer: `30m`, `90s`, `end`, `chapter` or `off`.
    public func setSleepTimer(_ timer: String) async throws(PlayerClient.Failure) {
        _ = try await call(.setSleepTimer, [.string(timer)])
    }

    // MARK: - Bookmarks

    /// Marks where the loaded episode is now; the bookmark's id.
    public func bookmark(note: String) async throws(PlayerClient.Failure) -> Int64 {
        guard let id = try await single(.bookmark, [.string(note)]).int64Value else {
            throw PlayerClient.Failure("podsd sent no bookmark id")
        }
        return id
    }

    // MARK: - Settings

    /// Every setting (`key` nil) or one, of the player or of `podcast`.
    public func config(podcast: String?, key: String?) async throws(PlayerClient.Failure) -> [DBusValue] {
        try await single(.config, [.string(podcast ?? ""), .string(key ?? "")]).arrayValue ?? []
    }

    public func setConfig(podcast: String?, key: String, value: String) async throws(PlayerClient.Failure) {
        _ = try await call(.setConfig, [.string(podcast ?? ""), .string(key), .string(value)])
    }

    public func unsetConfig(podcast: String?, key: String) async throws(PlayerClient.Failure) {
        _ = try await call(.unsetConfig, [.string(podcast ?? ""), .string(key)])
    }

    // MARK: - Status

    /// `chapter`, `sleep` and `silenceSkipped` (keys in `PlayerItems.extras`).
    public func extras() async throws(PlayerClient.Failure) -> DBusValue { try await single(.extras) }

    // MARK: - Calls

    private func single(_ method: PlayerMethod, _ arguments: [DBusValue] = []) async throws(PlayerClient.Failure) -> DBusValue {
        guard let value = try await call(method, arguments).first else {
            throw PlayerClient.Failure("podsd sent no answer to \(method.name)")
        }
        return value
    }

    private func call(_ method: PlayerMethod, _ arguments: [DBusValue] = []) async throws(PlayerClient.Failure) -> [DBusValue] {
        try await player.call(path: PlayerNames.objectPath, interface: PlayerNames.interface, member: method.name, arguments,
                              timeout: method.timeout)
    }
}
