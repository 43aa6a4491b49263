import Foundation
import Logging
import PodsFeeds
import PodsHTTP
import PodsLibrary
import PodsSync

/// What one sync did (`pods sync --json`).
package struct SyncResult: Sendable, Equatable, Codable {
    /// Actions the server acknowledged.
    package var uploaded = 0
    /// Remote actions that changed an episode here (or will, when it stops playing).
    package var applied = 0
    package var subscribed = 0
    package var unsubscribed = 0
    /// Remote actions for podcasts or episodes this library does not have, or unusable.
    package var skipped = 0
    /// Actions still waiting for the server.
    package var queued = 0
    package var error: String?
}

/// One sync with the account's server, in the order that loses nothing:
/// subscriptions first (down, then up), then episode actions down, then
/// up. Downloading first lets a newer remote change win over an older one
/// queued here (which is then dropped, never sent to move anyone back);
/// what is left queued is newer than anything the server has for its
/// episode, so it goes stamped with the time it is sent — servers hand
/// out actions by their own timestamps (`since`), and an action stamped in
/// the past would never reach a device that synced since (AntennaPod
/// #2121). Each batch leaves the queue only when the server answered 2xx.
package struct SyncRunner: Sendable {
    package let library: Library
    package let http: HTTPClient
    package let credentials: HTTPCredentials
    package let account: SyncAccount
    /// Subscribes to a feed as `pods subscribe` does.
    package let subscribe: @Sendable (String) async throws(LibraryError) -> Podcast
    /// Fetches these podcasts' own feeds now, following a move a feed proves
    /// (a permanent redirect, its new-feed-url), as a refresh does.
    package let refresh: @Sendable ([Int64]) async -> Void
    /// Whether a feed's subscription and progress may leave this machine
    /// (`podcast`: its id here; nil for one unsubscribed).
    package let isShared: @Sendable (_ feedURL: String, _ podcast: Int64?) -> Bool
    /// The episode playing right now (nil when paused or stopped).
    package let playingEpisode: @Sendable () async -> Int64?
    /// How close to its end (seconds) a remote play marks an episode of
    /// `podcast` played, given its length (the settings read once a podcast).
    package let playedWithin: @Sendable (_ podcast: Int64) -> @Sendable (_ length: Double?) -> Int
    /// Episodes of a podcast the sync changed, with their positions now
    /// (clients hear of it; the player moves a loaded, paused one).
    package let changed: @Sendable (_ podcastID: Int64, _ positions: [Int64: Double?]) async -> Void
    package let logger: Logger

    /// How far back each download reaches before the last one's timestamp:
    /// what arrived in the same second, and clock readings a second apart.
    package static let overlap: Int64 = 120
    /// gpodder.net answers at most 1000 actions at once; pages beyond this stop.
    package static let maximumPages = 1000
    package static let batchesPerSecond = 16

    private var endpoints: SyncEndpoints {
        SyncEndpoints(api: SyncAPIKind(rawValue: account.api) ?? .gpodder, server: account.server, user: account.user, device: account.device)
    }

    /// Runs the sync; `full` reads the server from the start.
    package func run(full: Bool) async -> (SyncResult, SyncAccount) {
        var result = SyncResult()
        var state = account
        if full {
            state.subscriptionsSince = 0
            state.actionsSince = 0
        }
        do throws(SyncError) {
            let podcasts = try await syncSubscriptions(&state, &result, uploadAll: full || account.isFirstSync)
            try await save(state)
            try await downloadActions(&state, &result, podcasts: podcasts)
            try await save(state)
            if full || account.isFirstSync { _ = try await db { () throws(LibraryError) in try library.queueListeningState() } }
            try await uploadActions(state, &result, podcasts: podcasts)
        } catch {
            result.error = error.message
        }
        result.queued = (try? await db { () throws(LibraryError) in try library.queuedActionCount() }) ?? 0
        state.lastSyncAt = Date()
        state.lastError = result.error
        state.lastResult = (try? JSONEncoder().encode(result)).map { String(decoding: $0, as: UTF8.self) }
        try? await save(state)
        return (result, state)
    }

    // MARK: - Subscriptions

    /// Subscriptions down, then up; the podcasts followed afterwards.
    private func syncSubscriptions(_ state: inout SyncAccount, _ result: inout SyncResult,
                                   uploadAll: Bool) async throws(SyncError) -> [Podcast] {
        // The overlap again: Nextcloud's `since` is strict and its answer's timestamp is the time it
        // answered, so a change in that same second would never come. Changes come as each URL's latest
        // state, so reading one twice does nothing; a change made here and not sent yet wins (below).
        let since = state.subscriptionsSince > 0 ? max(0, state.subscriptionsSince - Self.overlap) : 0
        let (body, offset) = try await request(endpoints.subscriptionChanges(since: since))
        state.clockOffset = offset
        let changes = try SyncAnswers.subscriptionChanges(body, from: account.server)
        let podcasts = try await db { () throws(LibraryError) in try library.podcasts() }
        let queued = try await db { () throws(LibraryError) in try library.queuedSubscriptions() }
        let byURL = Dictionary(podcasts.map { (ActionMatching.normalized($0.feedURL), $0) }, uniquingKeysWith: { first, _ in first })
        let queuedHere = Dictionary(queued.map { (ActionMatching.normalized($0.feedURL), $0.subscribed) }, uniquingKeysWith: { _, last in last })
        // A change made here and not sent yet is newer than the server's.
        // A URL with a password in it is the same feed as the one without (kept here without it).
        func key(_ url: String) -> String { ActionMatching.normalized(HTTPCredentials.splitting(url).url) }
        // The server's removes of podcasts followed here and not subscribed again here since.
        var removes = changes.remove.compactMap { url in byURL[key(url)].flatMap { queuedHere[key(url)] != true ? $0 : nil } }
        // A remove and an add in one answer is how a device says a feed moved (the gpodder API's
        // move). It is one here only on the feed's own proof: fetched now, its permanent redirect or
        // new-feed-url names the added URL and the refresher moves it, episodes and progress kept.
        // Otherwise the podcast is the remove's to take, as the other device chose.
        let added = Set(changes.add.map(key))
        if !removes.isEmpty, !added.isEmpty {
            await refresh(removes.map(\.id))
            let after = try await db { () throws(LibraryError) in try library.podcasts() }
            let movedHere = Set(after.filter { added.contains(key($0.feedURL)) }.map(\.id))
            removes.removeAll { movedHere.contains($0.id) }
        }
        let following = Set(try await db { () throws(LibraryError) in try library.podcasts() }.map { key($0.feedURL) })
        let adds = changes.add.filter { !following.contains(key($0)) && queuedHere[key($0)] != false }
        result.subscribed += await subscribeAll(adds)
        // Each remove applies to the podcast only while it is still at the removed URL, read in the
        // same write: one that moved meanwhile is another address's now (REVIEW-4, N1), and one
        // subscribed in this pass was never in `removes`.
        for podcast in removes {
            let removed = try await db { () throws(LibraryError) in
                guard try library.unsubscribe(podcast.id, ifAt: podcast.feedURL) else { return false }
                try library.forgetQueuedSubscription(podcast.feedURL)
                return true
            }
            if removed { result.unsubscribed += 1 }
        }
        // Up: what changed here (everything, the first time), never private feeds or podcasts with sync = false.
        let now = try await db { () throws(LibraryError) in (try library.podcasts(), try library.queuedSubscriptions()) }
        let shared = Set(now.0.filter { isShared($0.feedURL, $0.id) }.map(\.feedURL))
        let followed = Set(now.0.map(\.feedURL))
        var add = Set(now.1.filter { $0.subscribed && shared.contains($0.feedURL) }.map(\.feedURL))
        // A removal goes unless the podcast is followed here again, or was a private feed.
        let remove = Set(now.1.filter { !$0.subscribed && !followed.contains($0.feedURL) && isShared($0.feedURL, nil) }.map(\.feedURL))
        if uploadAll { add.formUnion(shared) }
        var moved = false
        if !add.isEmpty || !remove.isEmpty {
            let (answerBody, _) = try await request(endpoints.uploadSubscriptions(add: add.sorted(), remove: remove.sorted()))
            let answer = try SyncAnswers.upload(answerBody, from: account.server)
            // A server's rewrite never puts a password into a URL (the server has no business holding one).
            for (old, new) in answer.updatedURLs where !new.isEmpty && new != old && HTTPClient.isHTTP(new)
                && HTTPCredentials.splitting(new).credentials == nil {
                try await db { () throws(LibraryError) in try library.moveFeed(from: old, to: new) }
                logger.info("sync: \(old) is now \(new) (the server's update_urls)")
                moved = true
            }
        }
        let sent = now.1.map(\.id)
        try await db { () throws(LibraryError) in try library.acknowledgeSubscriptions(sent) }
        state.subscriptionsSince = changes.timestamp
        return moved ? try await db { () throws(LibraryError) in try library.podcasts() } : now.0
    }

    /// Subscribes to what other devices added, all at once (the refresher
    /// bounds how many fetch together); how many worked.
    private func subscribeAll(_ urls: [String]) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for url in urls {
                group.addTask {
                    do throws(LibraryError) {
                        let podcast = try await subscribe(url)
                        try await LibraryWork.lane.run { () throws(LibraryError) in try library.forgetQueuedSubscription(podcast.feedURL) }
                        return true
                    } catch {
                        let shown = HTTPCredentials.splitting(url).url
                        logger.warning("sync: could not subscribe to \(shown), which another device added: \(error.message)")
                        return false
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    // MARK: - Episode actions

    private func downloadActions(_ state: inout SyncAccount, _ result: inout SyncResult, podcasts: [Podcast]) async throws(SyncError) {
        var since = max(0, state.actionsSince - (state.actionsSince > 0 ? Self.overlap : 0))
        let byURL = Dictionary(podcasts.map { (ActionMatching.normalized($0.feedURL), $0.id) }, uniquingKeysWith: { first, _ in first })
        let playing = await playingEpisode()
        for _ in 0..<Self.maximumPages {
            let (body, _) = try await request(endpoints.actions(since: since))
            let page = try SyncAnswers.actions(body, from: account.server)
            result.skipped += page.unusable
            var byPodcast: [Int64: [EpisodeAction]] = [:]
            var elsewhere: [EpisodeAction] = []
            for action in page.actions {
                guard let id = byURL[ActionMatching.normalized(HTTPCredentials.splitting(action.podcast).url)] else {
                    elsewhere.append(action)
                    continue
                }
                byPodcast[id, default: []].append(action)
            }
            // A feed URL not here may be a podcast here under another address (it moved): its guids tell.
            let guids = elsewhere.compactMap(\.guid)
            let byGuid = guids.isEmpty ? [:] : try await db { () throws(LibraryError) in try library.podcastIDs(forGuids: guids) }
            for action in elsewhere {
                guard let id = action.guid.flatMap({ byGuid[$0] }) else {
                    result.skipped += 1
                    continue
                }
                byPodcast[id, default: []].append(action)
            }
            for (podcastID, actions) in byPodcast {
                try await apply(actions.sorted { $0.timestamp < $1.timestamp }, to: podcastID, playing: playing, state: state, &result)
            }
            state.actionsSince = max(state.actionsSince, page.timestamp)
            // gpodder.net pages by the last action's timestamp; a short page is the last.
            guard page.count >= 1000 else { break }
            guard page.timestamp > since else {
                logger.warning("sync: more than 1000 actions share the second \(since) on the server; the rest cannot be paged to")
                break
            }
            since = page.timestamp
        }
        if result.skipped > 0 { logger.info("sync: \(result.skipped) remote actions were for podcasts or episodes not here, or unusable") }
    }

    /// How far past now a remote action's date may be (a clock a little fast) before it is refused.
    static let futureSlack: TimeInterval = 3600

    /// Decides each action (oldest first) against the episode's last change,
    /// then writes what applies in one transaction.
    private func apply(_ actions: [EpisodeAction], to podcastID: Int64, playing: Int64?, state: SyncAccount,
                       _ result: inout SyncResult) async throws(SyncError) {
        let episodes = try await db { () throws(LibraryError) in try library.syncEpisodes(podcastID: podcastID) }
        let index = ActionMatching.Index(episodes.map { SyncableEpisode(id: $0.id, guid: $0.guid, enclosureURLs: $0.enclosureURLs) })
        var byID = Dictionary(episodes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var changes: [RemoteChange] = []
        var deferred: [RemoteChange] = []
        let threshold = playedWithin(podcastID)
        for var action in actions {
            guard let match = index.episode(for: action), let episode = byID[match.id] else {
                result.skipped += 1
                continue
            }
            // The server's clock, read as this machine's.
            action.timestamp = action.timestamp.addingTimeInterval(-state.clockOffset)
            // A date past now would win over every later pause here until then (a device whose clock is
            // years ahead, a forged action): more than an hour ahead is refused, less is now.
            let now = Date()
            if action.timestamp > now.addingTimeInterval(Self.futureSlack) {
                logger.warning("sync: ignored a play of episode \(episode.id) dated \(SyncTimestamp.string(action.timestamp)), after now")
                result.skipped += 1
                continue
            }
            action.timestamp = min(action.timestamp, now)
            let length = (action.total ?? 0) > 0 ? Double(action.total ?? 0) : episode.duration
            if let position = action.position, let length, length > 0, Double(position) > length + 60 {
                logger.warning("sync: ignored a play at \(position) s of episode \(episode.id), which lasts \(length) s")
                result.skipped += 1
                continue
            }
            let within = threshold(length)
            let decision = ActionDecision.decide(action, localChange: episode.changedAt, isPlaying: playing == episode.id, playedWithin: within)
            let change: RemoteChange
            switch decision {
            case .ignore: continue
            case .setPosition(let seconds): change = RemoteChange(episodeID: episode.id, position: Double(seconds), completed: false, at: action.timestamp)
            case .markPlayed: change = RemoteChange(episodeID: episode.id, position: 0, completed: true, at: action.timestamp)
            case .markUnplayed: change = RemoteChange(episodeID: episode.id, position: 0, completed: false, at: action.timestamp)
            case .later:
                let position = action.position ?? 0
                let played = action.kind == .play && (action.total ?? 0) > 0 && (action.total ?? 0) - position <= within
                deferred.append(RemoteChange(episodeID: episode.id, position: played ? 0 : Double(position), completed: played, at: action.timestamp))
                continue
            }
            changes.append(change)
            byID[episode.id]?.changedAt = change.at
        }
        for change in deferred {
            try await db { () throws(LibraryError) in
                try library.deferRemote(change.episodeID, position: change.position, completed: change.completed, at: change.at)
            }
        }
        let pending = changes
        let appliedIDs = try await db { () throws(LibraryError) in try library.applyRemote(pending) }
        result.applied += deferred.count + appliedIDs.count
        // The last change of each episode is where it stands now.
        let applied = Set(appliedIDs)
        var last: [Int64: Double?] = [:]
        for change in changes where applied.contains(change.episodeID) { last[change.episodeID] = change.position }
        if !last.isEmpty { await changed(podcastID, last) }
    }

    private func uploadActions(_ state: SyncAccount, _ result: inout SyncResult, podcasts: [Podcast]) async throws(SyncError) {
        // The podcasts whose subscriptions this sync has sent; one subscribed since waits for the next sync.
        let synced = Set(podcasts.map(\.id))
        let endpoints = endpoints
        var batch = 0
        var waiting: Set<Int64> = []  // actions of podcasts subscribed during this sync, left queued
        while true {
            let skip = waiting
            let queued = try await db { () throws(LibraryError) in
                try library.queuedActions(limit: ActionBatches.size + skip.count).filter { !skip.contains($0.id) }
            }
            if queued.isEmpty { return }
            // Whether each podcast is shared is read now, not when the sync began.
            let now = try await db { () throws(LibraryError) in try library.podcasts() }
            let shared = Set(now.filter { isShared($0.feedURL, $0.id) }.map(\.id))
            let later = queued.filter { shared.contains($0.podcastId) && !synced.contains($0.podcastId) }
            waiting.formUnion(later.map(\.id))
            // Actions of podcasts kept here, and of kinds the server drops, leave unsent.
            let sending = queued.filter { action in
                shared.contains(action.podcastId) && synced.contains(action.podcastId) && !action.episodeURL.isEmpty
                    && endpoints.keeps(EpisodeAction.Kind(rawValue: action.action) ?? .play)
            }
            let sendingIDs = Set(sending.map(\.id))
            let dropped = queued.map(\.id).filter { !sendingIDs.contains($0) && !waiting.contains($0) }
            guard !sending.isEmpty || !dropped.isEmpty else { return }
            let sentAt = Date()
            // At most 16 batches (480 actions) share a second: gpodder.net pages by
            // timestamp, 1000 at a time, and cannot page past a second holding more.
            let spread = TimeInterval(batch / Self.batchesPerSecond)
            if !sending.isEmpty {
                let actions = sending.map { queued in
                    EpisodeAction(
                        podcast: queued.podcastURL, episode: queued.episodeURL, guid: queued.guid,
                        kind: EpisodeAction.Kind(rawValue: queued.action) ?? .play,
                        timestamp: stamp(queued.at, sentAt: sentAt, state: state).addingTimeInterval(state.clockOffset + spread),
                        started: queued.started, position: queued.position, total: queued.total)
                }
                batch += 1
                do throws(SyncError) {
                    let (body, _) = try await request(endpoints.uploadActions(actions))
                    _ = try SyncAnswers.upload(body, from: account.server)
                } catch {
                    if !dropped.isEmpty { try await db { () throws(LibraryError) in try library.acknowledgeActions([], sentAt: nil, dropped: dropped) } }
                    throw error
                }
            }
            let ids = sending.map(\.id)
            // The episodes' last change is what the server now says of them, so its echo changes nothing.
            try await db { () throws(LibraryError) in try library.acknowledgeActions(ids, sentAt: sentAt.addingTimeInterval(spread), dropped: dropped) }
            result.uploaded += sending.count
        }
    }

    /// When an action is said to have happened. One queued while syncing
    /// was on goes with the time it is sent: the download before it found
    /// nothing newer for its episode, and servers hand actions out by their
    /// timestamps, so one stamped in the past (made offline) would never
    /// reach a device that synced since. One from before (the history a
    /// first sync sends) keeps its own time, so it never passes for newer
    /// than another device's later listening.
    private func stamp(_ at: Date, sentAt: Date, state: SyncAccount) -> Date {
        at > state.activatedAt ? max(sentAt, at) : at
    }

    // MARK: - Requests

    /// One request with Basic authentication; the body and the server's
    /// clock offset (measured from its `Date` header, 0 within 2 s).
    private func request(_ request: SyncRequest) async throws(SyncError) -> (Data, Double) {
        try await Self.send(request, http: http, credentials: credentials, server: account.server)
    }

    package static func send(_ request: SyncRequest, http: HTTPClient, credentials: HTTPCredentials,
                     server: String) async throws(SyncError) -> (Data, Double) {
        let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
        let headers = [(name: "Authorization", value: "Basic \(token)"), (name: "Accept", value: "application/json")]
        let started = Date()
        let response: HTTPResponse
        do throws(HTTPError) {
            if let body = request.body {
                response = try await http.post(request.url, body: body, headers: headers)
            } else {
                response = try await http.get(request.url, headers: headers)
            }
        } catch {
            throw failure(error, server: server)
        }
        var offset = 0.0
        if let serverClock = SyncAnswers.httpDate(response.date) {
            let here = started.addingTimeInterval(Date().timeIntervalSince(started) / 2)
            let measured = serverClock.timeIntervalSince(here)
            offset = abs(measured) <= 2 ? 0 : measured.rounded()
        }
        return (response.body, offset)
    }

    package static func failure(_ error: HTTPError, server: String) -> SyncError {
        switch error.status {
        case 401?, 403?: SyncError("\(server) refused the user name or password (HTTP \(error.status ?? 401))")
        case 404?: SyncError("\(server) is not a gpodder.net or Nextcloud GPodder Sync server: \(error.message)")
        case let status? where status >= 500: SyncError("\(server) failed (HTTP \(status)); what was not sent stays queued for the next sync")
        default: SyncError("\(error.message); what was not sent stays queued for the next sync")
        }
    }

    private func save(_ state: SyncAccount) async throws(SyncError) {
        try await db { () throws(LibraryError) in try library.saveSyncState(state) }
    }

    /// Library work on the library's thread, its errors as sync errors.
    private func db<T: Sendable>(_ body: @escaping @Sendable () throws(LibraryError) -> T) async throws(SyncError) -> T {
        try await LibraryWork.run(body) { SyncError($0.message) }
    }
}
