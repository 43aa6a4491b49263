import PodsDBus

/// Drives podsd's library interface (`org.pods.Library1`): what `pods`
/// uses for subscriptions, episodes and the queue. Lists come back as the
/// JSON text the README documents.
public struct LibraryClient: Sendable {
    private let player: PlayerClient

    public init(_ player: PlayerClient) { self.player = player }

    public func subscribe(_ url: String) async throws(PlayerClient.Failure) -> String {
        try await json("Subscribe", [.string(url)], timeout: .seconds(120))
    }

    public func unsubscribe(_ podcast: String) async throws(PlayerClient.Failure) {
        _ = try await call("Unsubscribe", [.string(podcast)])
    }

    public func podcasts() async throws(PlayerClient.Failure) -> String { try await json("Podcasts") }

    /// `podcast` is an id or a title prefix; nil lists every podcast's episodes.
    public func episodes(podcast: String?, unplayedOnly: Bool, limit: Int?) async throws(PlayerClient.Failure) -> String {
        try await json("Episodes", [.string(podcast ?? ""), .bool(unplayedOnly), .int32(Int32(clamping: limit ?? -1))])
    }

    /// (done, total) from every refresh podsd runs, as it goes.
    public func refreshProgress() async -> AsyncStream<(done: Int, total: Int)> {
        let signals = try? await player.connection.signals(matching: DBusSignalMatch(
            path: LibraryNames.objectPath, interface: LibraryNames.interface, member: "RefreshProgress"))
        return AsyncStream { continuation in
            let task = Task {
                for await signal in signals ?? AsyncStream(unfolding: { nil }) {
                    guard let done = signal.arguments.first?.int64Value, let total = signal.arguments.last?.int64Value else { continue }
                    continuation.yield((Int(done), Int(total)))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func refresh(podcast: String?) async throws(PlayerClient.Failure) -> String {
        try await json("Refresh", [.string(podcast ?? "")], timeout: .seconds(600))
    }

    public func play(episode: Int64) async throws(PlayerClient.Failure) {
        _ = try await call("PlayEpisode", [.int64(episode)], timeout: .seconds(20))
    }

    public func currentEpisode() async throws(PlayerClient.Failure) -> String { try await json("CurrentEpisode") }

    public func mark(episode: Int64, played: Bool) async throws(PlayerClient.Failure) {
        _ = try await call("Mark", [.int64(episode), .bool(played)])
    }

    public func queue() async throws(PlayerClient.Failure) -> String { try await json("Queue") }

    public func enqueue(_ episodes: [Int64], at index: Int?) async throws(PlayerClient.Failure) {
        _ = try await call("QueueAdd", [.array(.int64, episodes.map { .int64($0) }), .int32(Int32(clamping: index ?? -1))])
    }

    public func dequeue(_ episode: Int64) async throws(PlayerClient.Failure) { _ = try await call("QueueRemove", [.int64(episode)]) }

    public func move(_ episode: Int64, to index: Int) async throws(PlayerClient.Failure) {
        _ = try await call("QueueMove", [.int64(episode), .int32(Int32(clamping: index))])
    }

    public func clearQueue() async throws(PlayerClient.Failure) { _ = try await call("QueueClear") }

    public func importOPML(_ text: String) async throws(PlayerClient.Failure) -> String {
        try await json("ImportOPML", [.string(text)], timeout: .seconds(600))
    }

    public func exportOPML() async throws(PlayerClient.Failure) -> String { try await json("ExportOPML") }

    // MARK: - Downloads and the cache

    /// Starts downloading an episode's missing bytes; `downloadsChanged` tells when it is done.
    public func download(_ episode: Int64) async throws(PlayerClient.Failure) { _ = try await call("Download", [.int64(episode)]) }

    public func downloads() async throws(PlayerClient.Failure) -> String { try await json("Downloads") }

    public func deleteDownload(_ episode: Int64) async throws(PlayerClient.Failure) {
        _ = try await call("DeleteDownload", [.int64(episode)])
    }

    /// Downloads the `count` newest unplayed episodes of `podcast` after each refresh (0: none).
    public func setAutoDownload(podcast: String, count: Int) async throws(PlayerClient.Failure) {
        _ = try await call("SetAutoDownload", [.string(podcast), .uint32(UInt32(clamping: count))])
    }

    public func storage() async throws(PlayerClient.Failure) -> String { try await json("Storage") }

    public func setCacheBudget(_ bytes: Int64) async throws(PlayerClient.Failure) {
        _ = try await call("SetCacheBudget", [.int64(bytes)])
    }

    /// `{"episodeId", "buffering", "cached"}` for the loaded episode.
    public func cacheStatus() async throws(PlayerClient.Failure) -> String { try await json("CacheStatus") }

    /// The episode ids of every `DownloadsChanged` signal from now on.
    public func downloadsChanged() async -> AsyncStream<Int64> {
        let signals = try? await player.connection.signals(matching: DBusSignalMatch(
            path: LibraryNames.objectPath, interface: LibraryNames.interface, member: "DownloadsChanged"))
        return AsyncStream { continuation in
            let task = Task {
                for await signal in signals ?? AsyncStream(unfolding: { nil }) {
                    if let id = signal.arguments.first?.int64Value { continuation.yield(id) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: - Calls

    private func json(_ member: String, _ arguments: [DBusValue] = [], timeout: Duration? = nil) async throws(PlayerClient.Failure) -> String {
        let reply = try await call(member, arguments, timeout: timeout)
        guard let text = reply.first?.stringValue else { throw PlayerClient.Failure("podsd sent no answer to \(member)") }
        return text
    }

    private func call(_ member: String, _ arguments: [DBusValue] = [], timeout: Duration? = nil) async throws(PlayerClient.Failure) -> [DBusValue] {
        try await player.call(path: LibraryNames.objectPath, interface: LibraryNames.interface, member: member, arguments,
                              timeout: timeout)
    }
}
