import PodsCache
import PodsDBus
import PodsFeedParser
import PodsLibrary
import PodsPlayer
import PodsProtocol
import PodsSession
import Synchronization

/// MPRIS `Playlists`: each subscribed podcast is a playlist
/// (`/org/pods/podcast/<id>`, its cached artwork as the icon); activating
/// one resumes its episode in progress, else plays its newest unplayed.
/// The active playlist is the podcast of the episode loaded.
package final class Playlists: Sendable {
    /// A playlist as MPRIS describes it: `(oss)`.
    package struct Entry: Sendable, Equatable {
        var podcastID: Int64
        var title: String
        var icon: String

        var value: DBusValue {
            .structure([.objectPath(MPRIS.podcastPathPrefix.appending(escaping: String(podcastID))), .string(title), .string(icon)])
        }
    }

    /// The most playlists one `GetPlaylists` returns.
    package static let maximumCount = 1000

    private let connection: DBusConnection
    private let controller: PlayerController
    private let player: Playback
    private struct Known {
        var count: UInt32 = 0
        var active: Entry?
        /// What clients were told of each podcast, to tell them of changes.
        var told: [Int64: Entry] = [:]
    }
    private let known = Mutex(Known())
    private let requests: AsyncStream<Void>.Continuation
    private let pending: AsyncStream<Void>

    private let library: Library
    private let artwork: ArtworkCache?

    package init(connection: DBusConnection, controller: PlayerController, player: Playback, library: Library,
                 artwork: ArtworkCache?) {
        self.connection = connection
        self.controller = controller
        self.player = player
        self.library = library
        self.artwork = artwork
        (pending, requests) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    package var count: UInt32 { known.withLock { $0.count } }

    /// `ActivePlaylist`: `(b(oss))`, invalid with path `/` when nothing is loaded.
    package var active: DBusValue {
        let entry = known.withLock { $0.active }
        return .structure([.bool(entry != nil), entry?.value ?? .structure([.objectPath(DBusObjectPath(validLiteral: "/")), .string(""), .string("")])])
    }

    /// Asks for the count, the active playlist and titles and icons to be read again.
    package func refresh() { requests.yield() }

    package func run() async {
        for await _ in pending { await update() }
    }

    package func finish() { requests.finish() }

    // MARK: - Reading

    /// `GetPlaylists`.
    package func playlists(from index: Int, count: Int, order: PodcastOrder, reversed: Bool) async throws(DBusError) -> [Entry] {
        let library = library
        let podcasts = try await LibraryCall.run { () throws(LibraryError) in
            try library.podcasts(in: order, reversed: reversed, offset: index, limit: min(count, Self.maximumCount))
        }
        var entries: [Entry] = []
        for podcast in podcasts { entries.append(await entry(podcast)) }
        known.withLock { known in for entry in entries { known.told[entry.podcastID] = entry } }
        return entries
    }

    /// `ActivatePlaylist`: plays the podcast's episode in progress, else its newest unplayed (a serial podcast's oldest).
    package func activate(_ path: DBusObjectPath) async throws(DBusError) {
        let library = library
        guard let podcastID = MPRIS.id(in: path, under: MPRIS.podcastPathPrefix) else {
            throw DBusError.invalidArgs("\(path.rawValue) is not a playlist of Pods")
        }
        let podcast = try await LibraryCall.run { () throws(LibraryError) in try library.podcast(podcastID) }
        guard let episodeID = try await LibraryCall.run({ () throws(LibraryError) in try library.episodeToPlay(inPodcast: podcastID) }) else {
            throw DBusError.failed("Every episode of \(podcast.title) is played")
        }
        try await onBus { () throws(SessionError) in try await player.play(episodeID: episodeID) }
    }

    private func entry(_ podcast: Podcast) async -> Entry {
        let icon = if let url = podcast.artworkURL, let artwork = artwork { await artwork.cachedURI(for: url, policy: URLPolicy(feedURL: podcast.feedURL)) } else { String?.none }
        return Entry(podcastID: podcast.id, title: podcast.title, icon: icon ?? "")
    }

    // MARK: - Announcing

    private func update() async {
        let library = library
        let count = UInt32(clamping: (try? await LibraryWork.lane.run { () throws(LibraryError) in try library.podcastCount() }) ?? 0)
        let activeID = await controller.currentState().track?.episode?.podcastID
        var active: Entry?
        if let activeID, let podcast = try? await LibraryWork.lane.run({ () throws(LibraryError) in try library.podcast(activeID) }) {
            active = await entry(podcast)
        }
        var changedEntries: [Entry] = []
        let told = known.withLock { $0.told }
        if !told.isEmpty, let podcasts = try? await LibraryWork.lane.run({ () throws(LibraryError) in try library.podcasts() }) {
            let present = Set(podcasts.map(\.id))
            known.withLock { known in known.told = known.told.filter { present.contains($0.key) } }  // unsubscribed ones go
            for podcast in podcasts {
                guard let before = told[podcast.id] else { continue }
                let now = await entry(podcast)
                if now != before { changedEntries.append(now) }
            }
        }
        let (countChanged, activeChanged) = known.withLock { known in
            defer {
                known.count = count
                known.active = active
                for entry in changedEntries { known.told[entry.podcastID] = entry }
            }
            return (known.count != count, known.active != active)
        }
        var properties: [String: DBusValue] = [:]
        if countChanged { properties["PlaylistCount"] = .uint32(count) }
        if activeChanged { properties["ActivePlaylist"] = self.active }
        for entry in changedEntries {
            try? connection.emitSignal(path: MPRIS.objectPath, interface: MPRIS.playlistsInterface, member: "PlaylistChanged",
                                       arguments: [entry.value])
        }
        if !properties.isEmpty {
            try? connection.emitPropertiesChanged(path: MPRIS.objectPath, interface: MPRIS.playlistsInterface, changed: properties)
        }
    }
}
