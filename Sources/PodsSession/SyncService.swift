import Foundation
import Logging
import PodsChapters
import PodsHTTP
import PodsLibrary
import PodsSync

/// Sync with a gpodder.net-compatible or Nextcloud GPodder Sync server:
/// set up once (the password kept like a private feed's), then run by
/// `pods sync` and by podsd itself — at start, after refreshes, and a few
/// seconds (`sync-delay`) after playback pauses or stops. One sync runs at
/// a time; a sync asked for while one runs follows it.
package actor SyncService {
    private let subscriber: FeedSubscriber
    private let playback: Playback
    private let logger: Logger
    private var running: Task<SyncResult, Never>?
    private var timer: Task<Void, Never>?
    private var stopped = false

    private let library: Library
    private let preferences: PreferenceStore
    /// Where the sync server's password is kept; nil: no sync (podsd keeps no library).
    private let credentials: CredentialStore?

    /// `subscriber` subscribes to podcasts another device added;
    /// `playback` is asked what plays, and moves a loaded episode the sync moved.
    package init(subscriber: FeedSubscriber, playback: Playback, library: Library, preferences: PreferenceStore,
                 credentials: CredentialStore?, logger: Logger) {
        self.subscriber = subscriber
        self.playback = playback
        self.library = library
        self.preferences = preferences
        self.credentials = credentials
        self.logger = logger
    }

    // MARK: - Setting up

    /// Checks the credentials with the server at once, registers the device
    /// (gpodder.net), keeps the password and turns syncing on.
    package func setup(server: String, user: String, device: String, api: String, password: String) async throws(SessionError) -> SyncAccount {
        guard HTTPClient.isHTTP(server) else { throw SessionError.invalidArgument("the sync server is an http(s) URL, not '\(server.prefix(80))'") }
        guard let kind = SyncAPIKind(rawValue: api) else { throw SessionError.invalidArgument("the API is gpodder or nextcloud, not '\(api.prefix(40))'") }
        guard !user.isEmpty else { throw SessionError.invalidArgument("a user name is needed") }
        guard let store = credentials else { throw SessionError.failed("podsd keeps no library, so no sync") }
        let deviceID = device.isEmpty ? SyncEndpoints.defaultDevice(hostName: ProcessInfo.processInfo.hostName) : device
        guard deviceID.range(of: "^[A-Za-z0-9_.-]+$", options: .regularExpression) != nil else {
            throw SessionError.invalidArgument("a device id is letters, digits, '.', '-' and '_' (gpodder.net's rule), not '\(deviceID.prefix(60))'")
        }
        let endpoints = SyncEndpoints(api: kind, server: server, user: user, device: deviceID)
        let credentials = HTTPCredentials(user: user, password: password)
        let http = Self.client()
        do throws(SyncError) {
            let (body, _) = try await SyncRunner.send(endpoints.check(now: Date()), http: http, credentials: credentials, server: endpoints.server)
            if kind == .nextcloud { _ = try SyncAnswers.subscriptionChanges(body, from: endpoints.server) }
            if let register = endpoints.registerDevice(caption: "Pods on \(ProcessInfo.processInfo.hostName)") {
                _ = try await SyncRunner.send(register, http: http, credentials: credentials, server: endpoints.server)
            }
        } catch {
            throw SessionError.failed(error.message)
        }
        try await store.keep(credentials, forKey: CredentialStore.syncKey(endpoints.server))
        let account = SyncAccount(server: endpoints.server, user: user, device: deviceID, api: kind.rawValue)
        let active = try await LibraryWork.run { () throws(LibraryError) in try self.library.activateSync(account) }
        logger.info("sync set up with \(endpoints.server) as \(user) (device \(deviceID), \(kind.rawValue) API)")
        schedule(after: .zero)
        return active
    }

    /// Syncing off; the password is forgotten, the server's place kept.
    package func turnOff() async throws(SessionError) {
        let account = try await LibraryWork.run { () throws(LibraryError) in try self.library.syncAccount() }
        timer?.cancel()
        try await LibraryWork.run { () throws(LibraryError) in try self.library.deactivateSync() }
        if let account { try await credentials?.remove(key: CredentialStore.syncKey(account.server)) }
    }

    package func account() async throws(SessionError) -> SyncAccount? {
        try await LibraryWork.run { () throws(LibraryError) in try self.library.syncAccount() }
    }

    package func queuedCount() async throws(SessionError) -> Int {
        try await LibraryWork.run { () throws(LibraryError) in try self.library.queuedActionCount() }
    }

    // MARK: - Syncing

    /// Syncs now (after the sync under way, if any); `full` reads the server from the start.
    package func sync(full: Bool) async -> SyncResult {
        let previous = running
        let task = Task { [self] in
            _ = await previous?.value
            return await runOnce(full: full)
        }
        running = task
        return await task.value
    }

    /// Syncs `delay` from now, unless another request comes first (which moves it).
    package nonisolated func schedule(after delay: Duration) {
        Task { await self.arm(delay) }
    }

    private func arm(_ delay: Duration) {
        guard !stopped else { return }
        timer?.cancel()
        timer = Task { [self] in
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            _ = await sync(full: false)
        }
    }

    package func finish() {
        stopped = true
        timer?.cancel()
    }

    private func runOnce(full: Bool) async -> SyncResult {
        let account: SyncAccount?
        do throws(SessionError) { account = try await self.account() } catch { return SyncResult(error: error.message) }
        guard let account else {
            return SyncResult(error: "sync is not set up: pods sync setup SERVER_URL --user NAME --password-stdin")
        }
        guard let credentials = credentials?.credentials(forKey: CredentialStore.syncKey(account.server)) else {
            return SyncResult(error: "no password is kept for \(account.server): run pods sync setup again")
        }
        let (subscriber, playback) = (subscriber, playback)
        let preferences = preferences
        let store = self.credentials
        let runner = SyncRunner(
            library: library, http: Self.client(), credentials: credentials, account: account,
            subscribe: { url throws(LibraryError) in
                // A password in a URL another device synced goes to the store, as one typed or imported does.
                let (plain, credentials) = HTTPCredentials.splitting(url)
                do throws(SessionError) { return try await subscriber.subscribe(plain, credentials: credentials) } catch {
                    throw LibraryError(.feed, error.message)
                }
            },
            refresh: { ids in _ = try? await subscriber.refresher.refresh(ids) },
            isShared: { feedURL, podcast in
                store?.credentials(for: feedURL) == nil && podcast.map { preferences.value(.sync, podcast: $0).boolValue != false } ?? true
            },
            playingEpisode: { await playback.playingEpisodeID() },
            playedWithin: { podcast in
                let playback = preferences.playback(for: podcast)
                return { length in max(30, Int(playback.completionStretch(duration: length.map { .mediaSeconds($0) }).components.seconds)) }
            },
            changed: { _, positions in await playback.syncChanged(positions: positions) },
            logger: logger)
        let started = ContinuousClock.now
        let (result, _) = await runner.run(full: full)
        let took = ContinuousClock.now - started
        if let error = result.error {
            logger.warning("sync with \(account.server): \(error)")
        } else {
            logger.info("""
                sync with \(account.server) in \(took): \(result.uploaded) sent, \(result.applied) applied, \
                \(result.subscribed) subscribed, \(result.unsubscribed) unsubscribed, \(result.skipped) skipped
                """)
        }
        await library.changes.delivered()  // `pods sync` answers once lists and neighbours follow
        return result
    }

    /// Sync answers are bounded like every other download.
    private static func client() -> HTTPClient {
        HTTPClient(maximumBytes: 32 << 20, deadline: .seconds(120))
    }
}
