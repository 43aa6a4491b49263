import Foundation

/// How soon a transfer is wanted.
public enum TransferPriority: Sendable {
    /// Someone is waiting on these bytes now: the read an episode's playback
    /// (or a chapter list being shown) is blocked on.
    case urgent
    /// Everything else: feeds, artwork, chapters, transcripts, directories,
    /// sync, downloads and read-ahead.
    case background
}

/// The one scheduler every HTTP transfer of the process starts through:
/// the transfer loop's (feeds, artwork, chapters, transcripts,
/// directories, sync) and the episode caches' range requests alike.
///
/// Background transfers run at most `backgroundLimit` at once in all and
/// `backgroundPerServer` to one server (`scheme://host:port`); urgent ones
/// may go past those by `keptForUrgent` in all and one per server, so the
/// bytes a playing episode waits for never queue behind a 200-feed refresh
/// or a download, and no server ever sees more than
/// `backgroundPerServer + 1` connections from Pods.
///
/// The transfer loop asks without waiting (`tryStart`) and is woken
/// (`onRelease`) when a slot frees; a cache's download thread waits
/// (`start(server:priority:isCancelled:)`).
public final class TransferScheduler: @unchecked Sendable {
    // @unchecked Sendable, proven: `running`, `runningPerServer` and
    // `wakers` are read and written only while `condition` is locked; the
    // limits are constants.

    /// The process's scheduler.
    public static let shared = TransferScheduler(backgroundLimit: 16, backgroundPerServer: 6, keptForUrgent: 2)

    public let backgroundLimit: Int
    public let backgroundPerServer: Int
    public let keptForUrgent: Int

    private let condition = NSCondition()
    private var running = 0
    private var runningPerServer: [String: Int] = [:]
    private var wakers: [@Sendable () -> Void] = []

    /// A scheduler of its own (tests); the process uses `shared`.
    public init(backgroundLimit: Int, backgroundPerServer: Int, keptForUrgent: Int) {
        self.backgroundLimit = max(1, backgroundLimit)
        self.backgroundPerServer = max(1, backgroundPerServer)
        self.keptForUrgent = max(0, keptForUrgent)
    }

    /// The key a transfer to `url` counts under: its origin (a URL that
    /// has none counts under itself, and fails in libcurl anyway).
    static func server(of url: String) -> String { HTTPClient.origin(of: url) ?? url }

    // MARK: - Starting and ending

    /// Takes a slot for a transfer to `server` if one is free now.
    public func tryStart(server: String, priority: TransferPriority) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return take(server, priority)
    }

    /// Waits for a slot for a transfer to `server`; false if `isCancelled`
    /// turned true first (polled every 50 ms). Blocks: call it from a
    /// thread of your own.
    public func start(server: String, priority: TransferPriority, isCancelled: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !take(server, priority) {
            if isCancelled() { return false }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        return true
    }

    /// Gives back the slot of a transfer to `server` that ended.
    public func end(server: String) {
        condition.lock()
        running -= 1
        let left = (runningPerServer[server] ?? 1) - 1
        runningPerServer[server] = left > 0 ? left : nil
        let wake = wakers
        condition.broadcast()
        condition.unlock()
        for waker in wake { waker() }
    }

    /// Calls `waker` (on the thread that ended a transfer) whenever a slot frees.
    func onRelease(_ waker: @escaping @Sendable () -> Void) {
        condition.lock()
        wakers.append(waker)
        condition.unlock()
    }

    /// Transfers under way now, in all and to `server` (for tests and the benchmark).
    public func runningCount(server: String? = nil) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return server.map { runningPerServer[$0] ?? 0 } ?? running
    }

    /// Takes a slot if the limits allow; `condition` is locked.
    private func take(_ server: String, _ priority: TransferPriority) -> Bool {
        let (total, perServer) = priority == .urgent
            ? (backgroundLimit + keptForUrgent, backgroundPerServer + 1)
            : (backgroundLimit, backgroundPerServer)
        let toServer = runningPerServer[server] ?? 0
        guard running < total, toServer < perServer else { return false }
        running += 1
        runningPerServer[server] = toServer + 1
        return true
    }
}
