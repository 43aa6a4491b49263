import Foundation
import PodsConcurrency
import PodsFeedParser
import PodsHTTP
import PodsLibrary

/// Fetches feeds over HTTP and stores them in the library: subscribe and
/// refresh.
///
/// Feeds are fetched in parallel on one libcurl transfer loop that keeps
/// connections alive, within the limits every transfer of the process
/// shares (`TransferScheduler`: 16 at once, 6 to one server); a slow or
/// dead feed holds up only itself. The refresher's own bound is the feeds
/// in hand: at most `feedsInHand` are being fetched or hold a fetched body
/// for the pipeline, so bodies waiting (in memory or spilled to disk)
/// never outnumber it. Fetched
/// feeds are parsed on as many threads as there are cores while others are
/// still fetched, and each is stored in one transaction. At most
/// `pipelineLimit` feeds are between their body's arrival and their store
/// at once (a fetched body keeps its fetch slot until it gets in), which
/// bounds the memory a refresh takes whatever the library holds.
/// Concurrent refreshes of the same podcast, and concurrent subscriptions to
/// the same URL, share one fetch. A 304 costs no
/// parse; a permanent redirect or `itunes:new-feed-url` moves the stored URL.
public actor FeedRefresher {
    /// The library it stores feeds in.
    public nonisolated let library: Library
    private let http: HTTPClient
    private let feedsInHand: Int
    private var inHand = 0
    /// Bytes of fetched bodies waiting for the pipeline (each still holding
    /// its fetch slot); no new fetch starts while they pass 16 MB, so 20
    /// large feeds that changed at once do not all wait in memory together.
    private var waitingBytes = 0
    private static let waitingBytesLimit = 16 << 20
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var inFlight: [Int64: Task<RefreshSummary, Never>] = [:]
    private var subscribing: [String: Task<Result<Podcast, LibraryError>, Never>] = [:]

    private let pipeline: AsyncGate
    /// What each podcast ignores of what arrives, judged as its feed is prepared.
    private nonisolated let arrivalRule: ArrivalRule?

    /// `feedsInHand`: feeds fetched or holding a body at once (1: one after another).
    public init(library: Library, http: HTTPClient = FeedRefresher.spillingClient(), feedsInHand: Int = 16,
                pipelineLimit: Int = ProcessInfo.processInfo.activeProcessorCount + 2, arrivalRule: ArrivalRule? = nil) {
        self.library = library
        self.arrivalRule = arrivalRule
        self.http = http
        self.feedsInHand = max(1, feedsInHand)
        self.pipeline = AsyncGate(width: max(1, pipelineLimit))
    }

    /// How long a feed's whole fetch may take by default.
    public static let feedDeadline: Duration = .seconds(60)

    /// The default client: a feed that has not arrived whole within
    /// `feedDeadline` fails (a server trickling bytes cannot hold a refresh
    /// or a subscribe), and bodies past 1 MB wait for the parser in a
    /// temporary file instead of memory.
    public static func spillingClient() -> HTTPClient {
        var options = HTTPClient.Options()
        options.deadline = feedDeadline
        options.spillDirectory = FileManager.default.temporaryDirectory.path
        return HTTPClient(options: options)
    }

    /// The priority of a feed's fetch, parse and store: below what answers
    /// the desktop, so that the tasks of a 200-feed refresh never queue
    /// ahead of an MPRIS call's on the task pool.
    static let priority = TaskPriority.utility

    // MARK: - Subscribing

    /// Fetches and parses `url` and subscribes to it. `feed://` and `itpc://`
    /// are read as `http://`; a `file://` feed is read from disk.
    /// Concurrent subscriptions to one URL share one fetch (and one podcast).
    public func subscribe(_ url: String) async throws(LibraryError) -> Podcast {
        let feedURL = Self.normalized(url)
        // An address with controls, bidi overrides or zero-width characters in it is no one a
        // listener typed (a sync server, an OPML file or a podroll sent it); printed, it lies.
        guard !feedURL.unicodeScalars.contains(where: { [.control, .format].contains($0.properties.generalCategory) }) else {
            throw LibraryError(.invalid, "a feed's address holds no control or format characters")
        }
        if let shared = subscribing[feedURL] { return try await shared.value.get() }
        let task = Task(executorPreference: Self.coordinating, priority: Self.priority) { () -> Result<Podcast, LibraryError> in
            do throws(LibraryError) { return .success(try await self.subscribeOnce(feedURL)) } catch { return .failure(error) }
        }
        subscribing[feedURL] = task
        defer { subscribing[feedURL] = nil }
        return try await task.value.get()
    }

    /// Subscribes to `feedURL`; a web page that names its feed (`<link
    /// rel="alternate" type="application/rss+xml">`) subscribes to that feed
    /// (one hop: a page naming a page does not go on).
    private func subscribeOnce(_ feedURL: String, followingPage: Bool = true) async throws(LibraryError) -> Podcast {
        switch try await subscribeOrFindFeed(feedURL, followingPage: followingPage) {
        case .subscribed(let podcast): return podcast
        case .pageNamesFeed(let named): return try await subscribeOnce(named, followingPage: false)
        }
    }

    private enum SubscribeOutcome {
        case subscribed(Podcast)
        /// `feedURL` was a web page naming this feed.
        case pageNamesFeed(String)
    }

    private func subscribeOrFindFeed(_ feedURL: String, followingPage: Bool) async throws(LibraryError) -> SubscribeOutcome {
        let library = library
        if let existing = try await Self.storing.run({ () throws(LibraryError) in try library.podcast(feedURL: feedURL) }) {
            throw LibraryError(.duplicate, "already subscribed to \(existing.title) (\(feedURL))")
        }
        let fetched: Fetched
        do {
            fetched = try await fetch(feedURL, etag: nil, lastModified: nil)
        } catch {
            throw LibraryError(.feed, Self.fetchFailure(feedURL, error))
        }
        guard let body = fetched.body else { throw LibraryError(.feed, "cannot fetch \(feedURL): no content") }
        defer { pipeline.leave() }
        let prepared: PreparedFeed
        switch await prepare(body, baseURL: fetched.finalURL, for: nil) {
        case .success(let made): prepared = made.0
        case .failure(.parse(let error)):
            guard followingPage, let page = body.text(upTo: 2 << 20),
                  let named = HTMLDocument.feedLinks(page, base: fetched.finalURL).first, Self.normalized(named) != feedURL else {
                throw LibraryError(.feed, "\(feedURL): \(error.message)" + (followingPage ? " (and it names no feed)" : ""))
            }
            return .pageNamesFeed(Self.normalized(named))
        case .failure(.library(let error)): throw error
        }
        return .subscribed(try await Self.storing.run { () throws(LibraryError) in
            try library.subscribe(feedURL: fetched.permanentURL ?? feedURL, prepared: prepared, etag: fetched.etag,
                                  lastModified: fetched.lastModified)
        })
    }

    // MARK: - Parsing and storing

    /// Feeds are parsed on threads of their own, as many at once as there
    /// are cores, while other feeds are still being fetched.
    /// At a lower priority, so a refresh parsing on every core leaves the CPU
    /// to whatever answers the desktop.
    private static let parsing = BlockingLane("pods.parse", width: ProcessInfo.processInfo.activeProcessorCount, niceness: 10)
    /// Library work, one job at a time: the writes (SQLite has one writer
    /// anyway) and the few small reads a refresh makes before it fetches.
    private static let storing = BlockingLane("pods.store", width: 1, niceness: 5)
    /// What runs between a feed's fetch, parse and store (the limits, the
    /// hand-offs, freeing what was stored): small steps, but 200 feeds'
    /// worth add up to a sizeable share of a refresh's CPU. On the task
    /// pool they ran at the priority of the threads that answer the
    /// desktop; here they run below it, as the parsing and the writes do.
    private static let coordinating = BlockingLane("pods.refresh", width: 1, niceness: 5)

    private enum PrepareFailure: Error {
        case parse(FeedError)
        case library(LibraryError)
    }

    /// Parses a feed and prepares it for the library (for `podcastId`, nil
    /// for a new subscription) on the parsing lane.
    private nonisolated func prepare(_ body: Body, baseURL: String,
                                     for podcastId: Int64?) async -> Result<(PreparedFeed, newFeedURL: String?), PrepareFailure> {
        let (library, arrivalRule) = (library, arrivalRule)
        return await Self.parsing.run { () -> Result<(PreparedFeed, newFeedURL: String?), PrepareFailure> in
            // The items stored from the last parse are left out of this one: only what changed is parsed.
            let stored: Library.StoredItems
            do throws(LibraryError) { stored = try podcastId.map { id throws(LibraryError) in try library.storedItems(id) } ?? .none } catch {
                return .failure(.library(error))
            }
            let feed: Feed
            do throws(FeedError) {
                feed = try body.parse(with: FeedParser(baseURL: URL(string: baseURL), knownItems: stored.fingerprints))
            } catch {
                return .failure(.parse(error))
            }
            let ignores = arrivalRule?(podcastId)
            do throws(LibraryError) { return .success((try library.prepare(feed, stored: stored, ignores: ignores), feed.newFeedURL)) } catch {
                return .failure(.library(error))
            }
        }
    }

    // MARK: - Refreshing

    /// Refreshes the given podcasts (all when nil) in parallel; one summary
    /// each, in the order given. Failures are stored and reported, never thrown.
    /// `progress` hears (finished, total) each time a feed is done.
    public func refresh(_ ids: [Int64]? = nil,
                        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws(LibraryError) -> [RefreshSummary] {
        let library = library
        var targets = ids ?? []
        if ids == nil { targets = try await Self.storing.run { () throws(LibraryError) in try library.podcastIDs() } }
        let tasks = targets.map(refreshTask)
        let total = tasks.count
        // Cancelled (a shutdown, a caller's timeout): every feed's transfer ends at once, and
        // what was not fetched is left as it was.
        return await withTaskCancellationHandler {
            await withTaskGroup(of: (Int, RefreshSummary).self) { group in
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
        } onCancel: {
            for task in tasks { task.cancel() }
        }
    }

    private func refreshTask(_ id: Int64) -> Task<RefreshSummary, Never> {
        if let shared = inFlight[id] { return shared }
        let task = Task(executorPreference: Self.coordinating, priority: Self.priority) { await self.refreshOne(id) }
        inFlight[id] = task
        Task(executorPreference: Self.coordinating, priority: Self.priority) {
            _ = await task.value
            await self.finished(id)
        }
        return task
    }

    private func finished(_ id: Int64) { inFlight[id] = nil }

    /// Fetches (within the limits), parses and stores one podcast; the
    /// actor only counts the limits, so parsing and writing never queue
    /// behind each other on it.
    private nonisolated func refreshOne(_ id: Int64) async -> RefreshSummary {
        let library = library
        func store(_ body: @escaping @Sendable () throws(LibraryError) -> RefreshSummary) async throws(LibraryError) -> RefreshSummary {
            try await Self.storing.run(body)
        }
        let podcast: FeedSource
        do {
            podcast = try await Self.storing.run { () throws(LibraryError) in try library.feedSource(id) }
        } catch {
            return RefreshSummary(podcastId: id, title: "", error: error.message)
        }
        do throws(LibraryError) {
            let fetched: Fetched
            do {
                fetched = try await fetch(podcast.feedURL, etag: podcast.etag, lastModified: podcast.lastModified)
            } catch {
                // Cancelled is no failure of the feed: nothing is written.
                if error.code == .cancelled { return RefreshSummary(podcastId: id, title: podcast.title, error: error.message) }
                let message = error.status == 401 ? Self.fetchFailure(podcast.feedURL, error) : error.message
                return try await store { () throws(LibraryError) in try library.markRefreshFailed(id, error: message) }
            }
            guard let body = fetched.body else {
                let moved = fetched.permanentURL.flatMap { Self.mayMove(from: podcast.feedURL, to: $0) ? $0 : nil }
                return try await store { () throws(LibraryError) in try library.markNotModified(id, movedTo: moved) }
            }
            defer { pipeline.leave() }
            let prepared: PreparedFeed
            let newFeedURL: String?
            switch await prepare(body, baseURL: fetched.finalURL, for: id) {
            case .success(let made): (prepared, newFeedURL) = made
            case .failure(.parse(let error)):
                let message = error.message
                return try await store { () throws(LibraryError) in try library.markRefreshFailed(id, error: message) }
            case .failure(.library(let error)): throw error
            }
            let moved = (fetched.permanentURL ?? newFeedURL.map(Self.normalized)).flatMap { Self.mayMove(from: podcast.feedURL, to: $0) ? $0 : nil }
            return try await store { () throws(LibraryError) in
                try library.applyRefresh(id, prepared: prepared, etag: fetched.etag, lastModified: fetched.lastModified, movedTo: moved)
            }
        } catch {
            return RefreshSummary(podcastId: id, title: podcast.title, error: error.message)
        }
    }

    // MARK: - Fetching

    /// A failed fetch in one line; a 401 says what the feed wants.
    static func fetchFailure(_ feedURL: String, _ error: HTTPError) -> String {
        if error.status == 401 {
            return "\(feedURL): this feed needs a user name and password (pods subscribe URL --user NAME --password-stdin), "
                + "or the ones given are wrong"
        }
        return "cannot fetch \(feedURL): \(error.message)"
    }

    /// A feed's bytes, in memory or in a file of its own.
    private enum Body: Sendable {
        case memory(Data)
        /// A temporary file, removed once parsed.
        case file(String)

        /// The body as text, when it is at most `limit` bytes (a web page, not a feed).
        func text(upTo limit: Int) -> String? {
            switch self {
            case .memory(let data): data.count <= limit ? String(decoding: data, as: UTF8.self) : nil
            case .file: nil
            }
        }

        /// The feed; a file is removed once read, parsed or not.
        func parse(with parser: FeedParser) throws(FeedError) -> Feed {
            switch self {
            case .memory(let data): return try parser.parse(data)
            case .file(let path):
                defer { unlink(path) }
                return try parser.parse(fileAt: path)
            }
        }
    }

    /// A feed's bytes (nil body: not modified) and what the server said about them.
    private struct Fetched {
        var body: Body?
        var finalURL: String
        var permanentURL: String?
        var etag: String?
        var lastModified: String?
    }

    /// GETs an http(s) feed, conditionally when validators are given, within
    /// the limits; reads a `file://` feed from disk. A body comes back only
    /// once the pipeline has let it in (its fetch slot is held till then):
    /// the caller must `pipeline.leave()` when it has stored it.
    private func fetch(_ url: String, etag: String?, lastModified: String?) async throws(HTTPError) -> Fetched {
        if let file = URL(string: url), file.isFileURL {
            // A feed of the listener's own: local, within the size a feed may be over HTTP.
            let data: Data
            switch URLPolicy(documentURL: file).readLocalFile(url, maximumBytes: FeedParser.defaultSizeLimit) {
            case .success(let read): data = read
            case .failure(let error): throw HTTPError(.unreachable, error.message)
            }
            await pipeline.enter()
            return Fetched(body: .memory(data), finalURL: url)
        }
        let response = try await inHand { () async throws(HTTPError) -> HTTPResponse in
            let response = try await http.get(url, ifNoneMatch: etag, ifModifiedSince: lastModified)
            if response.status != 304 { await waitForPipeline(holding: response.body.count) }  // 0 for a spilled body
            return response
        }
        let body: Body? = response.status == 304 ? nil : response.bodyFile.map(Body.file) ?? .memory(response.body)
        return Fetched(body: body, finalURL: response.finalURL,
                       permanentURL: response.permanentURL, etag: response.etag, lastModified: response.lastModified)
    }

    // MARK: - Limits

    /// Waits for a place in the pipeline, counting the body's bytes as waiting meanwhile.
    private func waitForPipeline(holding bytes: Int) async {
        waitingBytes += bytes
        await pipeline.enter()
        waitingBytes -= bytes
        wakeWaiters()
    }

    /// Runs `body` (a fetch, and the wait for the pipeline) as one of the feeds in hand.
    private func inHand<T>(_ body: () async throws(HTTPError) -> T) async throws(HTTPError) -> T {
        while inHand >= feedsInHand || waitingBytes >= Self.waitingBytesLimit {
            await withCheckedContinuation { waiting.append($0) }
        }
        inHand += 1
        defer {
            inHand -= 1
            wakeWaiters()
        }
        return try await body()
    }

    /// Wakes as many waiters as there are free places, in the order they
    /// came; the others sleep on. (Waking all of them had each of 200
    /// waiting feeds check again, and wait again, every time one finished:
    /// tens of thousands of hops on the task pool that MPRIS calls need.)
    /// A woken waiter checks again; whatever frees a place wakes again.
    private func wakeWaiters() {
        guard waitingBytes < Self.waitingBytesLimit else { return }
        let free = max(0, min(feedsInHand - inHand, waiting.count))
        let woken = waiting.prefix(free)
        waiting.removeFirst(free)
        for waiter in woken { waiter.resume() }
    }

    // MARK: - URLs

    /// Whitespace trimmed, podcast schemes as http(s), as the parser reads links.
    /// Whether a subscription at `old` may move to `new` (a permanent
    /// redirect, or the feed's `new-feed-url`): to an address the feed may
    /// name (`URLPolicy`: a web feed moves only to the web), and never from
    /// https to plain http, where anyone on the path could serve it.
    public static func mayMove(from old: String, to new: String) -> Bool {
        guard URLPolicy(documentURL: URL(string: old)).allows(new) else { return false }
        return !(old.lowercased().hasPrefix("https://") && new.lowercased().hasPrefix("http://"))
    }

    /// The address a subscription is kept under: podcast schemes read as
    /// http, and a web address without its fragment (which never reaches the
    /// server: `feed.xml#x` is `feed.xml`, no second subscription).
    public static func normalized(_ url: String) -> String {
        let address = PodcastURL.normalizingScheme(url.trimmingCharacters(in: .whitespacesAndNewlines))
        guard HTTPClient.isHTTP(address), let hash = address.firstIndex(of: "#") else { return address }
        return String(address[..<hash])
    }
}
