import Foundation
import Logging
import PodsConcurrency
import PodsHTTP
import PodsLibrary

/// Every episode's range cache: opens one `EpisodeCache` per episode and
/// shares it between playback and a download, turns finished caches into
/// downloads, and keeps the partial ones within a storage budget.
///
/// Files live in `<cache directory>/media`, one per episode; what is in
/// them lives in the library. At start, files that no record names are
/// swept away.
public actor MediaCache {
    /// What clients of the cache hear about.
    public enum Update: Sendable {
        /// An episode's download started, finished, failed or was deleted.
        case downloadsChanged(episodeID: Int64)
        /// The server's file changed: the episode's cache was voided.
        case changed(episodeID: Int64)
        /// The bytes cannot come: a dead server, or a full disk (`.diskFull`).
        case failed(episodeID: Int64, CacheError)
    }

    /// The default storage budget for partial caches: 2 GB.
    public static let defaultBudget: Int64 = 2_000_000_000

    public nonisolated let directory: URL
    /// Updates, in order; ends at `shutdown()`.
    public nonisolated let updates: AsyncStream<Update>
    private let updateSink: AsyncStream<Update>.Continuation
    private let library: Library
    private let http: HTTPClient
    private let tuning: EpisodeCache.Tuning
    private let logger: Logger
    private let events: AsyncStream<(Int64, EpisodeCache.Event)>
    private let eventSink: AsyncStream<(Int64, EpisodeCache.Event)>.Continuation
    private var open: [Int64: Entry] = [:]
    private var opening: [Int64: Task<Result<EpisodeCache, CacheError>, Never>] = [:]
    /// Caches whose downloads are stopping and saving; reopening waits for them.
    private var closing: [Int64: Task<Void, Never>] = [:]
    /// Awaited by each caller back from an open before it takes the cache:
    /// a test holds one caller there while another uses the cache and lets go.
    private var backFromOpening: (@Sendable (Int64) async -> Void)?

    private struct Entry {
        var cache: EpisodeCache
        var users = 0
        /// Held by a download until it completes or fails.
        var downloading = false
        /// The download's host, while `downloading`.
        var host = ""
    }

    /// Downloads at once, in all and from one host: the rest wait their
    /// turn in order, without an open cache (so without its threads).
    public static let downloadLimit = 3
    public static let downloadsPerHost = 2
    /// Downloads asked for that wait for a free slot, in order.
    private var queuedDownloads: [(episodeID: Int64, url: String)] = []
    /// Downloads past the limits' check and not yet running (their cache is
    /// being opened): their slots are taken from the check on, so callers
    /// that come meanwhile (this actor runs others while one waits) queue.
    private var starting: [Int64: String] = [:]
    /// On a metered network downloads wait (queued, their bytes kept) and
    /// read-ahead is only what playback needs.
    public private(set) var isMetered = false

    /// - Parameter directory: the cache directory (`media` is made inside).
    public init(directory: URL, library: Library, http: HTTPClient = HTTPClient(),
                logger: Logger = Logger(label: "pods.cache")) {
        self.logger = logger
        self.directory = directory.appendingPathComponent("media")
        self.library = library
        self.http = http
        self.tuning = EpisodeCache.Tuning()
        (updates, updateSink) = AsyncStream.makeStream()
        (events, eventSink) = AsyncStream.makeStream()
    }

    /// Handles the caches' events; run it for the service's lifetime.
    public func run() async {
        for await (episodeID, event) in events {
            switch event {
            case .completed:
                if open[episodeID]?.downloading == true { await finishDownload(episodeID) }
            case .changed:
                guard let entry = open.removeValue(forKey: episodeID) else { break }
                await closeAndWait(entry.cache)
                updateSink.yield(.changed(episodeID: episodeID))
                if entry.downloading {  // the download starts over on the new file
                    do throws(CacheError) { try await download(episodeID: episodeID, url: entry.cache.url) } catch {
                        updateSink.yield(.failed(episodeID: episodeID, error))
                    }
                }
            case .failed(let error):
                if open[episodeID]?.downloading == true { await finishDownload(episodeID) }
                updateSink.yield(.failed(episodeID: episodeID, error))
            }
        }
    }

    // MARK: - Opening and releasing

    /// The cache of an episode for `url` (shared while open): from the
    /// library when it has one, else made by a probe request. Release it
    /// with `release(_:)`.
    ///
    /// - Parameters:
    ///   - duration: the episode's length in seconds, if the feed says: the
    ///     read-ahead then covers a span of listening time.
    ///   - forPlayback: fetch the file's end at once, as every demuxer reads
    ///     it first; false for a reader that only peeks (at a tag).
    /// - Throws: `.unknownLength` or `.diskFull` (stream instead), `.network`.
    public func open(episodeID: Int64, url: String, duration: Double? = nil,
                     forPlayback: Bool = true) async throws(CacheError) -> EpisodeCache {
        let cache = try await acquire(episodeID: episodeID, url: url)
        if let duration { cache.setDuration(duration) }
        if forPlayback { cache.prefetchTail() }
        open[episodeID, default: Entry(cache: cache)].users += 1
        return cache
    }

    /// Lets go of a cache from `open`; the last user closes it, and returns
    /// once its downloads have saved what they wrote.
    public func release(_ cache: EpisodeCache) async {
        guard var entry = open[cache.episodeID], entry.cache === cache else { return }
        entry.users -= 1
        guard entry.users <= 0 else {
            open[cache.episodeID] = entry
            return
        }
        open[cache.episodeID] = nil
        await closeAndWait(cache)
        enforceBudget()
    }

    /// Closes `cache` and waits for its lanes, on a thread of their own.
    private func closeAndWait(_ cache: EpisodeCache) async {
        let task = Task { _ = await Self.onThread { () throws(CacheError) in cache.closeAndWait() } }
        closing[cache.episodeID] = task
        await task.value
        if closing[cache.episodeID] == task { closing[cache.episodeID] = nil }
    }

    /// The open cache of `episodeID`, registered in `open`. Every wait is
    /// followed by a fresh look: a cache opened for several callers may have
    /// been used and let go of (so closed) by one of them before another
    /// resumed, and then that one opens it again.
    private func acquire(episodeID: Int64, url: String) async throws(CacheError) -> EpisodeCache {
        while true {
            if let entry = open[episodeID], !entry.cache.isChanged { return entry.cache }
            if let stopping = closing[episodeID] {
                await stopping.value
                if closing[episodeID] == stopping { closing[episodeID] = nil }
                continue
            }
            let task = opening[episodeID] ?? startOpening(episodeID: episodeID, url: url)
            let result = await task.value
            await backFromOpening?(episodeID)
            if opening[episodeID] == task {  // the first caller back registers it
                opening[episodeID] = nil
                let cache = try result.get()
                if open[episodeID] == nil {
                    cache.setMetered(isMetered)
                    open[episodeID] = Entry(cache: cache)
                    enforceBudget()
                }
                return open[episodeID]?.cache ?? cache
            }
            let cache = try result.get()
            if open[episodeID]?.cache === cache { return cache }
        }
    }

    /// Sets what each caller back from an open awaits first (tests: an interleaving to check).
    package func setBackFromOpening(_ hook: (@Sendable (Int64) async -> Void)?) {
        backFromOpening = hook
    }

    private func startOpening(episodeID: Int64, url: String) -> Task<Result<EpisodeCache, CacheError>, Never> {
        let task = Task { [directory, library, http, tuning, logger, eventSink] in
            await Self.onThread { () throws(CacheError) -> EpisodeCache in
                try Self.openBlocking(episodeID: episodeID, url: url, directory: directory, library: library,
                                      http: http, tuning: tuning, logger: logger) { eventSink.yield((episodeID, $0)) }
            }
        }
        opening[episodeID] = task
        return task
    }

    private static func openBlocking(
        episodeID: Int64, url: String, directory: URL, library: Library, http: HTTPClient, tuning: EpisodeCache.Tuning,
        logger: Logger, onEvent: @escaping @Sendable (EpisodeCache.Event) -> Void
    ) throws(CacheError) -> EpisodeCache {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CacheError(.file, "cannot make \(directory.path): \(error.localizedDescription)")
        }
        let record: CachedMedia?
        do { record = try library.cachedMedia(episodeID) } catch { throw CacheError(.library, error.message) }
        if var record {
            let path = directory.appendingPathComponent(record.fileName).path
            // A feed that moved the episode to another URL made its bytes
            // another file's: what is cached belongs to the old one.
            if record.url == url, let file = try? ScratchFile(path: path, length: nil), file.size == record.length {
                record.lastAccess = Date()
                return EpisodeCache(record: record, file: file, url: url, http: http, library: library,
                                    tuning: tuning, logger: logger, onEvent: onEvent)
            }
            try? library.deleteCachedMedia(episodeID)
            unlink(path)
        }
        return try EpisodeCache.create(
            episodeID: episodeID, url: url, directory: directory, fileName: fileName(episodeID, url), http: http,
            library: library, tuning: tuning, logger: logger, onEvent: onEvent)
    }

    /// `episode-<id>.<extension of the URL>`.
    static func fileName(_ episodeID: Int64, _ url: String) -> String {
        let pathExtension = URL(string: url)?.pathExtension.lowercased() ?? ""
        let safe = pathExtension.count <= 5 && !pathExtension.isEmpty && pathExtension.allSatisfy { $0.isLetter || $0.isNumber }
        return "episode-\(episodeID).\(safe ? pathExtension : "audio")"
    }

    /// Opens (a probe of the server, a file) and closes (waiting for the
    /// downloads to save) block: they run on four threads of their own,
    /// never on the cooperative pool, however many caches open at once.
    private static let blockingWork = BlockingLane("pods.cache", width: 4)

    private static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws(CacheError) -> T) async -> Result<T, CacheError> {
        do throws(CacheError) { return .success(try await blockingWork.run(work)) } catch { return .failure(error) }
    }

    /// Closes every cache and waits for their downloads to save what they
    /// wrote, then ends `run()` and `updates` (at shutdown).
    public func shutdown() async {
        let caches = open.values.map(\.cache)
        open.removeAll()
        // All close at once, then one wait: shutdown takes at most one
        // cache's time to save, however many are open.
        _ = await Self.onThread { () throws(CacheError) in
            for cache in caches { cache.close() }
            let deadline = Date(timeIntervalSinceNow: 3)
            for cache in caches { cache.waitForLanes(until: deadline) }
        }
        eventSink.finish()
        updateSink.finish()
    }

    // MARK: - Downloads

    /// Completes the episode's file (only the missing bytes) and keeps it
    /// as a download, never evicted. Past `downloadLimit` downloads (or
    /// `downloadsPerHost` from its host) it waits its turn.
    public func download(episodeID: Int64, url: String) async throws(CacheError) {
        if isDownloading(episodeID) { return }
        // A finished download skips the queue; its record is read on the cache's lane, not on this actor.
        let complete = await isDownloaded(episodeID)
        if isDownloading(episodeID) { return }  // asked again meanwhile
        if !complete, !hasDownloadSlot(for: url) {
            queuedDownloads.append((episodeID, url))
            updateSink.yield(.downloadsChanged(episodeID: episodeID))
            return
        }
        try await startDownload(episodeID: episodeID, url: url)
    }

    /// Downloads wait while `metered` (those under way go back to the front
    /// of the queue, keeping their bytes) and read-ahead shrinks to what
    /// playback needs; they start again once it is not.
    public func setMetered(_ metered: Bool) async {
        guard metered != isMetered else { return }
        isMetered = metered
        for entry in open.values { entry.cache.setMetered(metered) }
        guard metered else { return await startQueuedDownloads() }
        var stopped: [(episodeID: Int64, url: String)] = []
        for (episodeID, var entry) in open where entry.downloading {
            entry.cache.stopFilling()
            entry.downloading = false
            entry.users -= 1
            stopped.append((episodeID, entry.cache.url))
            if entry.users <= 0 {
                open[episodeID] = nil
                await closeAndWait(entry.cache)
            } else {
                open[episodeID] = entry
            }
            updateSink.yield(.downloadsChanged(episodeID: episodeID))
        }
        queuedDownloads.insert(contentsOf: stopped.sorted { $0.episodeID < $1.episodeID }, at: 0)
    }

    /// The episode IDs of the downloads waiting their turn, in order.
    public func queuedDownloadIDs() -> [Int64] { queuedDownloads.map(\.episodeID) }

    private static func host(of url: String) -> String { URL(string: url)?.host?.lowercased() ?? "" }

    /// Whether a download of `url` may start now (within `downloadLimit`
    /// and `downloadsPerHost`).
    private func hasDownloadSlot(for url: String) -> Bool {
        guard !isMetered else { return false }
        let hosts = open.values.filter(\.downloading).map(\.host) + starting.values
        let host = Self.host(of: url)
        return hosts.count < Self.downloadLimit && hosts.filter { $0 == host }.count < Self.downloadsPerHost
    }

    /// Running, starting or queued.
    private func isDownloading(_ episodeID: Int64) -> Bool {
        open[episodeID]?.downloading == true || starting[episodeID] != nil || queuedDownloads.contains { $0.episodeID == episodeID }
    }

    /// Starts the queued downloads that now fit the limits, in order.
    private func startQueuedDownloads() async {
        var index = 0
        while index < queuedDownloads.count, open.values.filter(\.downloading).count + starting.count < Self.downloadLimit {
            let next = queuedDownloads[index]
            guard hasDownloadSlot(for: next.url) else {
                index += 1
                continue
            }
            queuedDownloads.remove(at: index)
            do throws(CacheError) { try await startDownload(episodeID: next.episodeID, url: next.url) } catch {
                logger.error("download of episode \(next.episodeID): \(error)")
                updateSink.yield(.failed(episodeID: next.episodeID, error))
            }
        }
    }

    private func startDownload(episodeID: Int64, url: String) async throws(CacheError) {
        starting[episodeID] = Self.host(of: url)
        defer { starting[episodeID] = nil }
        var cache = try await acquire(episodeID: episodeID, url: url)
        while true {
            let pinned = cache
            _ = await Self.onThread { () throws(CacheError) in pinned.setPinned(true) }  // saves: fdatasync and a write
            if open[episodeID]?.cache === pinned { break }
            // Playback let go of the cache meanwhile and it closed (another may be open since, its record read
            // before this one was saved): pin the open one.
            cache = try await acquire(episodeID: episodeID, url: url)
        }
        guard var entry = open[episodeID] else { return }
        let wanted = !entry.downloading && !cache.isComplete
        if wanted, !isMetered {
            entry.downloading = true
            entry.host = Self.host(of: url)
            entry.users += 1
            open[episodeID] = entry
            cache.fillAll()
        } else {
            // The network turned metered while this download was starting (REVIEW-4, N7): it waits at
            // the front of the queue, as one under way does, instead of running to its end on it.
            if wanted, !queuedDownloads.contains(where: { $0.episodeID == episodeID }) { queuedDownloads.insert((episodeID, url), at: 0) }
            if entry.users == 0 {
                open[episodeID] = nil
                await closeAndWait(cache)
            }
        }
        updateSink.yield(.downloadsChanged(episodeID: episodeID))
    }

    private func finishDownload(_ episodeID: Int64) async {
        guard var entry = open[episodeID] else { return }
        entry.downloading = false
        open[episodeID] = entry
        await release(entry.cache)
        updateSink.yield(.downloadsChanged(episodeID: episodeID))
        await startQueuedDownloads()
    }

    /// Deletes an episode's cached file and its record.
    ///
    /// - Throws: when the episode is open (playing or downloading).
    public func delete(episodeID: Int64) async throws(CacheError) {
        if let index = queuedDownloads.firstIndex(where: { $0.episodeID == episodeID }) {
            queuedDownloads.remove(at: index)
            updateSink.yield(.downloadsChanged(episodeID: episodeID))
        }
        // A cache being opened (the listener just pressed play) is as good as open (REVIEW-4, N22).
        if let entry = open[episodeID], entry.users > 0 {
            throw CacheError(.file, "episode \(episodeID) is playing or downloading; stop it first")
        }
        if opening[episodeID] != nil || starting[episodeID] != nil {
            throw CacheError(.file, "episode \(episodeID) is being opened to play or download; stop it first")
        }
        if let stopping = closing[episodeID] { await stopping.value }
        try remove(episodeID)
        updateSink.yield(.downloadsChanged(episodeID: episodeID))
    }

    /// The record goes first, then the file: a crash leaves an orphan file
    /// (swept at start), never a record of missing bytes.
    private func remove(_ episodeID: Int64) throws(CacheError) {
        let record: CachedMedia?
        do {
            record = try library.cachedMedia(episodeID)
            try library.deleteCachedMedia(episodeID)
        } catch {
            throw CacheError(.library, error.message)
        }
        if let record { unlink(directory.appendingPathComponent(record.fileName).path) }
    }

    /// Whether the whole of `episodeID`'s file is on disk.
    public func isDownloaded(_ episodeID: Int64) async -> Bool {
        let library = library
        return (try? await Self.onThread { () throws(CacheError) in (try? library.cachedMedia(episodeID))??.complete == true }.get()) ?? false
    }

    /// Every cached episode, least recently used first, with what is open now.
    public func entries() throws(CacheError) -> [CacheEntry] {
        let records: [CachedMedia]
        do { records = try library.allCachedMedia() } catch { throw CacheError(.library, error.message) }
        return records.map { record in
            let live = open[record.episodeId]?.cache
            let media = live?.snapshot ?? record
            return CacheEntry(
                media: media, path: directory.appendingPathComponent(record.fileName).path,
                downloading: open[record.episodeId]?.downloading == true, error: live?.error?.message)
        }
    }

    // MARK: - Storage

    /// Deletes files that no record names (left by a crash between the two
    /// steps of a removal, or by an episode that left the library).
    public func sweep() {
        let names: Set<String>
        do { names = Set(try library.allCachedMedia().map(\.fileName)) } catch { return }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in files where !names.contains(file) {
            unlink(directory.appendingPathComponent(file).path)
        }
    }

    /// Evicts partial caches until the cached bytes fit the budget: played
    /// episodes first, then the least recently used. Never an open cache, a
    /// queued or playing episode, or a download.
    public func enforceBudget() {
        do {
            let budget = try library.cacheBudget() ?? Self.defaultBudget
            let records = try library.allCachedMedia()
            var total = records.reduce(0) { $0 + $1.cachedBytes }
            guard total > budget else { return }
            let inUse = try library.episodesInUse().union(open.keys).union(closing.keys)
            let played = try library.completedEpisodes()
            // Played episodes first, then the least recently used (records come oldest first).
            let candidates = records.filter { played.contains($0.episodeId) } + records.filter { !played.contains($0.episodeId) }
            for record in candidates where total > budget && !record.pinned && !inUse.contains(record.episodeId) {
                try remove(record.episodeId)
                total -= record.cachedBytes
            }
        } catch {
            return  // eviction tries again on the next release
        }
    }
}

/// One cached episode, as `pods downloads` lists it.
public struct CacheEntry: Sendable {
    public var media: CachedMedia
    /// The file on disk.
    public var path: String
    public var downloading: Bool
    /// What stopped its downloads, if anything did.
    public var error: String?

    /// `downloaded`, `downloading`, `failed` or `partial`.
    public var state: String {
        if media.complete { return "downloaded" }
        if error != nil { return "failed" }
        return downloading ? "downloading" : "partial"
    }
}
