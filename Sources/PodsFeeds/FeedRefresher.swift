import Foundation
import PodsFeedParser
import PodsHTTP
import PodsLibrary

/// Fetches feeds over HTTP and stores them in the library: subscribe and
/// refresh.
///
/// Feeds are fetched in parallel, at most `globalLimit` at once and
/// `perHostLimit` per host; a slow or dead feed holds up only itself.
/// Concurrent refreshes of the same podcast, and concurrent subscriptions to
/// the same URL, share one fetch. A 304 costs no
/// parse; a permanent redirect or `itunes:new-feed-url` moves the stored URL.
public actor FeedRefresher {
    private let library: Library
    private let http: HTTPClient
    private let globalLimit: Int
    private let perHostLimit: Int
    private var running = 0
    private var runningPerHost: [String: Int] = [:]
    private var waiting: [(host: String, continuation: CheckedContinuation<Void, Never>)] = []
    private var inFlight: [Int64: Task<RefreshSummary, Never>] = [:]
    private var subscribing: [String: Task<Result<Podcast, LibraryError>, Never>] = [:]

    public init(library: Library, http: HTTPClient = HTTPClient(), globalLimit: Int = 16, perHostLimit: Int = 4) {
        self.library = library
        self.http = http
        self.globalLimit = max(1, globalLimit)
        self.perHostLimit = max(1, perHostLimit)
    }

    // MARK: - Subscribing

    /// Fetches and parses `url` and subscribes to it. `feed://` and `itpc://`
    /// are read as `http://`; a `file://` feed is read from disk.
    /// Concurrent subscriptions to one URL share one fetch (and one podcast).
    public func subscribe(_ url: String) async throws(LibraryError) -> Podcast {
        let feedURL = Self.normalized(url)
        if let shared = subscribing[feedURL] { return try await shared.value.get() }
        let task = Task { () -> Result<Podcast, LibraryError> in
            do throws(LibraryError) { return .success(try await self.subscribeOnce(feedURL)) } catch { return .failure(error) }
        }
        subscribing[feedURL] = task
        defer { subscribing[feedURL] = nil }
        return try await task.value.get()
    }

    private func subscribeOnce(_ feedURL: String) async throws(LibraryError) -> Podcast {
        if let existing = try library.podcasts().first(where: { $0.feedURL == feedURL }) {
            throw LibraryError(.duplicate, "already subscribed to \(existing.title) (\(feedURL))")
        }
        let fetched: Fetched
        do {
            fetched = try await fetch(feedURL, etag: nil, lastModified: nil)
        } catch {
            throw LibraryError(.feed, "cannot fetch \(feedURL): \(error.message)")
        }
        guard let body = fetched.body else { throw LibraryError(.feed, "cannot fetch \(feedURL): no content") }
        let feed: Feed
        do {
            feed = try FeedParser(baseURL: URL(string: fetched.finalURL)).parse(body)
        } catch {
            throw LibraryError(.feed, "\(feedURL): \(error.message)")
        }
        return try library.subscribe(feedURL: fetched.permanentURL ?? feedURL, feed: feed, etag: fetched.etag,
                                     lastModified: fetched.lastModified)
    }

    // MARK: - Refreshing

    /// Refreshes the given podcasts (all when nil) in parallel; one summary
    /// each, in the order given. Failures are stored and reported, never thrown.
    /// `progress` hears (finished, total) each time a feed is done.
    public func refresh(_ ids: [Int64]? = nil,
                        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws(LibraryError) -> [RefreshSummary] {
        var targets = ids ?? []
        if ids == nil { targets = try library.podcasts().map(\.id) }
        var tasks: [Task<RefreshSummary, Never>] = []
        for id in targets { tasks.append(refreshTask(id)) }
        let total = tasks.count
        return await withTaskGroup(of: (Int, RefreshSummary).self) { group in
            for (index, task) in tasks.enumerated() { group.addTask { (index, await task.value) } }
            var summaries = [RefreshSummary?](repeating: nil, count: total)
            var finished = 0
            for await (index, summary) in group {
                summaries[index] = summary
                finished += 1
                progress(finished, total)
            }
            return summaries.compactMap { $0 }
        }
    }

    private func refreshTask(_ id: Int64) -> Task<RefreshSummary, Never> {
        if let shared = inFlight[id] { return shared }
        let task = Task { await self.refreshOne(id) }
        inFlight[id] = task
        Task {
            _ = await task.value
            self.finished(id)
        }
        return task
    }

    private func finished(_ id: Int64) { inFlight[id] = nil }

    private func refreshOne(_ id: Int64) async -> RefreshSummary {
        let podcast: Podcast
        do {
            podcast = try library.podcast(id)
        } catch {
            return RefreshSummary(podcastId: id, title: "", error: error.message)
        }
        do throws(LibraryError) {
            let fetched: Fetched
            do {
                fetched = try await fetch(podcast.feedURL, etag: podcast.etag, lastModified: podcast.lastModified)
            } catch {
                return try library.markRefreshFailed(id, error: error.message)
            }
            guard let body = fetched.body else { return try library.markNotModified(id, movedTo: fetched.permanentURL) }
            let feed: Feed
            do {
                feed = try FeedParser(baseURL: URL(string: fetched.finalURL)).parse(body)
            } catch {
                return try library.markRefreshFailed(id, error: error.message)
            }
            let moved = fetched.permanentURL ?? feed.newFeedURL.map(Self.normalized)
            return try library.applyRefresh(id, feed: feed, etag: fetched.etag, lastModified: fetched.lastModified, movedTo: moved)
        } catch {
            return RefreshSummary(podcastId: id, title: podcast.title, error: error.message)
        }
    }

    // MARK: - Fetching

    /// A feed's bytes (nil body: not modified) and what the server said about them.
    private struct Fetched {
        var body: Data?
        var finalURL: String
        var permanentURL: String?
        var etag: String?
        var lastModified: String?
    }

    /// GETs an http(s) feed, conditionally when validators are given, within
    /// the limits; reads a `file://` feed from disk.
    private func fetch(_ url: String, etag: String?, lastModified: String?) async throws(HTTPError) -> Fetched {
        if let file = URL(string: url), file.isFileURL {
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw HTTPError(.unreachable, "cannot read \(file.path)")
            }
            return Fetched(body: data, finalURL: url)
        }
        let response = try await limited(host: Self.host(of: url)) { () async throws(HTTPError) -> HTTPResponse in
            try await http.get(url, ifNoneMatch: etag, ifModifiedSince: lastModified)
        }
        return Fetched(body: response.status == 304 ? nil : response.body, finalURL: response.finalURL,
                       permanentURL: response.permanentURL, etag: response.etag, lastModified: response.lastModified)
    }

    // MARK: - Limits

    private func limited<T>(host: String, _ body: () async throws(HTTPError) -> T) async throws(HTTPError) -> T {
        while running >= globalLimit || runningPerHost[host, default: 0] >= perHostLimit {
            await withCheckedContinuation { waiting.append((host, $0)) }
        }
        running += 1
        runningPerHost[host, default: 0] += 1
        defer {
            running -= 1
            runningPerHost[host, default: 1] -= 1
            wakeWaiters()
        }
        return try await body()
    }

    /// Wakes every waiter; each checks the limits again.
    private func wakeWaiters() {
        let woken = waiting
        waiting.removeAll()
        for waiter in woken { waiter.continuation.resume() }
    }

    // MARK: - URLs

    /// Whitespace trimmed, podcast schemes as http(s), as the parser reads links.
    public static func normalized(_ url: String) -> String {
        PodcastURL.normalizingScheme(url.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private static func host(of url: String) -> String {
        URL(string: url)?.host?.lowercased() ?? url
    }
}
