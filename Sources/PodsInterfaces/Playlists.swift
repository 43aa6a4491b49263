import PodsCache
import PodsDBus
import PodsFeedParser
import PodsLibrary
import PodsPlayer
import PodsProtocol
import PodsSession
import Synchronization

/// MPRIS `Playlists`: the queue ("Up Next", `/org/pods/queue`), then the
/// playlists Pods keeps (`/org/pods/playlist/<id>`), then each subscribed
/// podcast (`/org/pods/podcast/<id>`). Names carry how many episodes each
/// holds; icons are the cached artwork of a podcast (a playlist's: its
/// first episode's podcast's). Activating the queue or a playlist plays it
/// and makes it what plays next; activating a podcast resumes its episode in
/// progress, else plays its next unplayed. The active playlist is the one
/// played last, else the podcast of the episode loaded. Followed live: a
/// change of what one holds is a `PlaylistChanged`.
package final class Playlists: SessionService {
    /// A playlist as MPRIS describes it: `(oss)`.
    package struct Entry: Sendable, Equatable {
        var path: DBusObjectPath
        var title: String
        var icon: String

        var value: DBusValue { .structure([.objectPath(path), .string(title), .string(icon)]) }
    }

    /// The most playlists one `GetPlaylists` returns.
    package static let maximumCount = 1000

    private let connection: DBusConnection
    private let controller: PlayerController
    private let player: Playback
    private let service: PlaylistService
    private struct Known {
        var count: UInt32 = 0
        /// Whether there are playlists of Pods' own, whose counts follow the episodes.
        var keepsPlaylists = false
        /// The queue's and the playlists' entries and the active one's id, as
        /// read at `keptGeneration`; read again once something they show changed.
        var kept: (entries: [Entry], activeID: Int64?, generation: Int)?
        /// Counts the changes of what the queue's and the playlists' entries show (`refresh(kept:)`).
        var keptGeneration = 0
        var active: Entry?
        /// What clients were told of each playlist, by path, to tell them of changes.
        var told: [DBusObjectPath: Entry] = [:]
    }
    private let known = Mutex(Known())
    private let requests: AsyncStream<Void>.Continuation
    private let pending: AsyncStream<Void>

    private let library: Library
    private let artwork: ArtworkCache?

    package init(connection: DBusConnection, controller: PlayerController, player: Playback, service: PlaylistService,
                 library: Library, artwork: ArtworkCache?) {
        self.connection = connection
        self.controller = controller
        self.player = player
        self.service = service
        self.library = library
        self.artwork = artwork
        (pending, requests) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        // The active playlist follows a new track; the entries follow what they show.
        let tracks = TrackWatch()
        controller.follow { [self] change in
            if case .state(let state, _) = change, tracks.note(state.track).newTrack { refresh(kept: false) }
        }
        library.changes.follow { [self] changes in
            if follows(changes) { refresh(kept: keptFollow(changes)) }
        }
    }

    package var count: UInt32 { known.withLock { $0.count } }

    /// `ActivePlaylist`: `(b(oss))`, invalid with path `/` when nothing is loaded.
    package var active: DBusValue {
        let entry = known.withLock { $0.active }
        return .structure([.bool(entry != nil), entry?.value ?? .structure([.objectPath(DBusObjectPath(validLiteral: "/")), .string(""), .string("")])])
    }

    /// Asks for the count, the active playlist and titles and icons to be read again.
    /// `kept`: the queue, the playlists or which plays next may have changed
    /// (not only the podcasts or the track), so they are read again too.
    package func refresh(kept: Bool = true) {
        if kept { known.withLock { $0.keptGeneration += 1 } }
        requests.yield()
    }

    /// Reads and announces at once and after each `refresh()`, until `finish()`.
    package func run() async {
        refresh()
        for await _ in pending { await update() }
    }

    package func finish() { requests.finish() }

    /// Reads the count before any client can ask (one query; nothing is
    /// loaded yet, so nothing is active): what a client reads first is no change.
    package func prime() async {
        let library = library
        guard let (podcasts, kept) = try? await LibraryWork.lane.run({ () throws(LibraryError) in
            (try library.podcastCount(), try library.playlistCount())
        }) else { return }
        known.withLock { known in
            known.count = UInt32(clamping: podcasts + kept + 1)
            known.keepsPlaylists = kept > 0
        }
    }

    /// Whether `changes` can change what clients were told: a playlist's
    /// count follows the episodes, their marks and downloads only when
    /// there are playlists (the queue's follows the queue).
    package func follows(_ changes: LibraryChanges) -> Bool {
        changes.podcasts || keptFollow(changes)
    }

    /// Whether `changes` can change the queue's or a playlist's entry (else only the podcasts are read again).
    package func keptFollow(_ changes: LibraryChanges) -> Bool {
        if changes.artwork || changes.queue || changes.playlists { return true }
        return known.withLock { $0.keepsPlaylists } && (!changes.episodes.isEmpty || !changes.status.isEmpty || !changes.downloads.isEmpty)
    }

    // MARK: - Reading

    /// `GetPlaylists`: the queue and the playlists, then the podcasts, in
    /// `order` (the queue first); `reversed` reads the whole of it backwards.
    package func playlists(from index: Int, count: Int, order: PodcastOrder, reversed: Bool) async throws(DBusError) -> [Entry] {
        let library = library
        let wanted = min(count, Self.maximumCount)
        var head = try await kept(order: order)
        if reversed { head.reverse() }
        let podcastTotal = try await LibraryCall.run { () throws(LibraryError) in try library.podcastCount() }
        // Sections in the order read: kept playlists then podcasts, or backwards podcasts then kept playlists.
        let headStart = reversed ? podcastTotal : 0
        let podcastStart = reversed ? 0 : head.count
        var entries: [Entry] = []
        /// The part of `index..<index + wanted` that a section from `start`, `length` long, holds (empty when none).
        func overlap(_ start: Int, _ length: Int) -> Range<Int> {
            let lower = max(index, start), upper = min(index + wanted, start + length)
            return lower..<max(lower, upper)
        }
        let headRange = overlap(headStart, head.count)
        let podcastRange = overlap(podcastStart, podcastTotal)
        var podcastEntries: [Entry] = []
        if !podcastRange.isEmpty {
            let podcasts = try await LibraryCall.run { () throws(LibraryError) in
                try library.podcasts(in: order, reversed: reversed, offset: podcastRange.lowerBound - podcastStart, limit: podcastRange.count)
            }
            for podcast in podcasts { podcastEntries.append(await entry(podcast)) }
        }
        let headEntries = headRange.isEmpty ? [] : Array(head[(headRange.lowerBound - headStart)..<(headRange.upperBound - headStart)])
        entries = reversed ? podcastEntries + headEntries : headEntries + podcastEntries
        known.withLock { known in for entry in entries { known.told[entry.path] = entry } }
        return entries
    }

    /// `ActivatePlaylist`: plays the queue or a playlist (and makes it what
    /// plays next), or a podcast's episode in progress, else its newest
    /// unplayed (a serial podcast's oldest).
    package func activate(_ path: DBusObjectPath) async throws(DBusError) {
        let library = library
        if path == MPRIS.queuePath {
            return try await onBus { () throws(SessionError) in try await service.play(PlaylistService.queueName) }
        }
        if let id = MPRIS.id(in: path, under: MPRIS.playlistPathPrefix) {
            return try await onBus { () throws(SessionError) in try await service.play(String(id)) }
        }
        guard let podcastID = MPRIS.id(in: path, under: MPRIS.podcastPathPrefix) else {
            throw DBusError.invalidArgs("\(path.rawValue) is not a playlist of Pods")
        }
        let podcast = try await LibraryCall.run { () throws(LibraryError) in try library.podcast(podcastID) }
        guard let episodeID = try await LibraryCall.run({ () throws(LibraryError) in try library.episodeToPlay(inPodcast: podcastID) }) else {
            throw DBusError.failed("Every episode of \(podcast.title) is played")
        }
        try await onBus { () throws(SessionError) in try await player.play(episodeID: episodeID) }
        await service.playedPodcast()
    }

    // MARK: - Entries

    /// The queue and the playlists Pods keeps, in `order` (the queue first).
    private func kept(order: PodcastOrder) async throws(DBusError) -> [Entry] {
        let library = library
        let (queued, first, lists) = try await LibraryCall.run { () throws(LibraryError) in
            (try library.queueCount(), try library.queue(offset: 0, limit: 1).first, try library.playlists())
        }
        let sorted: [EpisodePlaylist] = switch order {
        case .alphabetical: lists  // by name already
        case .created: lists.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        case .modified: lists.sorted { ($0.modifiedAt, $0.id) < ($1.modifiedAt, $1.id) }
        case .played: lists.sorted { ($0.playedAt ?? .distantPast, $0.id) < ($1.playedAt ?? .distantPast, $1.id) }
        }
        var entries = [Entry(path: MPRIS.queuePath, title: "Up Next (\(queued))", icon: await icon(podcast: first?.podcastId))]
        // Each playlist's icon is its first episode's podcast's, read once per podcast.
        var icons: [Int64: String] = [:]
        for list in sorted {
            var icon = ""
            if let podcast = list.firstPodcastId {
                if let known = icons[podcast] { icon = known } else { icon = await self.icon(podcast: podcast) }
                icons[podcast] = icon
            }
            entries.append(Entry(path: MPRIS.playlistPathPrefix.appending(escaping: String(list.id)), title: "\(list.name) (\(list.count))",
                                 icon: icon))
        }
        return entries
    }

    private func entry(_ podcast: Podcast) async -> Entry {
        let icon = if let url = podcast.artworkURL, let artwork = artwork { await artwork.cachedURI(for: url, policy: URLPolicy(feedURL: podcast.feedURL)) } else { String?.none }
        return Entry(path: MPRIS.podcastPathPrefix.appending(escaping: String(podcast.id)), title: podcast.title, icon: icon ?? "")
    }

    /// A podcast's cached artwork, as an icon ("" for none).
    private func icon(podcast id: Int64?) async -> String {
        let library = library
        guard let id, let podcast = try? await LibraryWork.lane.run({ () throws(LibraryError) in try library.podcast(id) }) else { return "" }
        return await entry(podcast).icon
    }

    // MARK: - Announcing

    private func update() async {
        let library = library
        let podcastCount = (try? await LibraryWork.lane.run { () throws(LibraryError) in try library.podcastCount() }) ?? 0
        // The queue's and the playlists' entries are read again only when something they show changed.
        let (head, activeID): ([Entry], Int64?)
        let (cached, generation) = known.withLock { known in
            (known.kept.flatMap { $0.generation == known.keptGeneration ? ($0.entries, $0.activeID) : nil }, known.keptGeneration)
        }
        if let cached {
            (head, activeID) = cached
        } else {
            head = (try? await kept(order: .alphabetical)) ?? []
            activeID = try? await LibraryWork.lane.run({ () throws(LibraryError) in try library.activePlaylist() })
            known.withLock { $0.kept = (head, activeID, generation) }  // a change meanwhile leaves it stale: read again next time
        }
        let count = UInt32(clamping: podcastCount + head.count)
        var active: Entry?
        if let id = activeID {
            let path = id == QueuePlaylist.id ? MPRIS.queuePath : MPRIS.playlistPathPrefix.appending(escaping: String(id))
            active = head.first { $0.path == path }
        } else {
            if let podcastID = await controller.currentState().track?.episode?.podcastID,
               let podcast = try? await LibraryWork.lane.run({ () throws(LibraryError) in try library.podcast(podcastID) }) {
                active = await entry(podcast)
            }
        }
        var changedEntries: [Entry] = []
        let told = known.withLock { $0.told }
        if !told.isEmpty {
            var now: [DBusObjectPath: Entry] = [:]
            for entry in head { now[entry.path] = entry }
            if let podcasts = try? await LibraryWork.lane.run({ () throws(LibraryError) in try library.podcasts() }) {
                for podcast in podcasts where told[MPRIS.podcastPathPrefix.appending(escaping: String(podcast.id))] != nil {
                    let entry = await entry(podcast)
                    now[entry.path] = entry
                }
            }
            known.withLock { known in known.told = known.told.filter { now[$0.key] != nil } }  // deleted and unsubscribed ones go
            changedEntries = now.values.filter { entry in told[entry.path].map { $0 != entry } ?? false }
        }
        let (countChanged, activeChanged) = known.withLock { known in
            defer {
                known.count = count
                known.keepsPlaylists = head.count > 1
                known.active = active
                for entry in changedEntries { known.told[entry.path] = entry }
            }
            return (known.count != count, known.active != active)
        }
        var properties: [String: DBusValue] = [:]
        if countChanged { properties[MPRIS.PlaylistsProperty.playlistCount.name] = .uint32(count) }
        if activeChanged { properties[MPRIS.PlaylistsProperty.activePlaylist.name] = self.active }
        for entry in changedEntries {
            try? connection.emitSignal(path: MPRIS.objectPath, interface: MPRIS.playlistsInterface, member: MPRIS.playlistChanged.name,
                                       arguments: [entry.value])
        }
        if !properties.isEmpty {
            try? connection.emitPropertiesChanged(path: MPRIS.objectPath, interface: MPRIS.playlistsInterface, changed: properties)
        }
    }
}
