import Logging
import PodsCache
import PodsChapters
import PodsDBus
import PodsFeedParser
import PodsLibrary
import PodsPlayback
import PodsPlayer
import PodsProtocol
import PodsSession
import Synchronization

/// MPRIS `TrackList`: the loaded track and the queue after it, at most 20
/// ids (`/org/pods/episode/<id>`), as the spec asks ("the 20 or so tracks
/// around the currently playing track"); edits go to the one queue that
/// `pods queue` edits too.
///
/// Each change is announced the way the spec prefers: one track added or
/// removed as `TrackAdded`/`TrackRemoved`; anything else, or a new current
/// track, as `TrackListReplaced`; and `Tracks` invalidated (never sent with
/// a value, and never on the Player or root interface, which KDE answers
/// with a full `GetAll`).
package final class TrackList: SessionService {
    /// The most ids the list shows.
    package static let maximumTracks = 20

    private let connection: DBusConnection
    private let controller: PlayerController
    private let tracks = Mutex<[DBusObjectPath]>([])
    private let current = Mutex<DBusObjectPath?>(nil)
    /// What was last said of each listed track, to announce its changes.
    private let described = Mutex<[DBusObjectPath: DBusValue]>([:])
    private let requests: AsyncStream<Void>.Continuation
    private let pending: AsyncStream<Void>

    private let library: Library
    private let artwork: ArtworkCache?
    /// Which of an episode's files plays (`preferred-format`), for `xesam:url`.
    private let preferences: PreferenceStore

    package init(connection: DBusConnection, controller: PlayerController, library: Library,
                 artwork: ArtworkCache?, preferences: PreferenceStore) {
        self.connection = connection
        self.controller = controller
        self.library = library
        self.artwork = artwork
        self.preferences = preferences
        (pending, requests) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        // The list follows a new track, the loaded one's length or artwork arriving, and the queue.
        let tracks = TrackWatch()
        controller.follow { [self] change in
            if case .state(let state, _) = change, tracks.note(state.track).changed { refresh() }
        }
        library.changes.follow { [self] changes in
            if changes.queue || !changes.episodes.isEmpty || !changes.status.isEmpty { refresh() }
        }
    }

    /// The ids as last announced.
    package var snapshot: [DBusObjectPath] { tracks.withLock { $0 } }

    /// Asks for the list to be read again (the queue or the current track changed).
    package func refresh() { requests.yield() }

    /// Reads and announces the list at once and after each `refresh()`, until `finish()`.
    package func run() async {
        refresh()
        for await _ in pending { await update() }
    }

    package func finish() { requests.finish() }

    private func update() async {
        let state = await controller.currentState()
        let currentID = state.track?.trackID.objectPath
        var ids = currentID.map { [$0] } ?? []
        let library = library
        let queued = (try? await LibraryWork.lane.run { () throws(LibraryError) in
            try library.queue(offset: 0, limit: Self.maximumTracks)
        }) ?? []
        ids += queued.map { TrackID.episode($0.id).objectPath }.filter { $0 != currentID }
        ids = Array(ids.prefix(Self.maximumTracks))
        let old = tracks.withLock { tracks in
            defer { tracks = ids }
            return tracks
        }
        let previousCurrent = current.withLock { current in
            defer { current = currentID }
            return current
        }
        guard old != ids || previousCurrent != currentID else { return await announceMetadataChanges(ids, state: state) }
        if previousCurrent == currentID, let index = Self.insertion(into: old, giving: ids) {
            let metadata = await metadata(for: [ids[index]], state: state).first ?? .variantDictionary([:])
            emit(MPRIS.TrackListSignal.trackAdded, [metadata, .objectPath(index == 0 ? MPRIS.noTrack : ids[index - 1])])
        } else if previousCurrent == currentID, let index = Self.insertion(into: ids, giving: old) {
            emit(MPRIS.TrackListSignal.trackRemoved, [.objectPath(old[index])])
        } else {
            emit(MPRIS.TrackListSignal.trackListReplaced, [.array(.objectPath, ids.map(DBusValue.objectPath)), .objectPath(currentID ?? MPRIS.noTrack)])
        }
        try? connection.emitPropertiesChanged(path: MPRIS.objectPath, interface: MPRIS.trackListInterface, changed: [:],
                                              invalidated: [MPRIS.TrackListProperty.tracks.name])
        await announceMetadataChanges(ids, state: state, announce: false)
    }

    /// `TrackMetadataChanged` for each listed track whose metadata is not
    /// what was last said (a refresh renamed it, its length or artwork
    /// arrived); with `announce` false, only notes what clients now know.
    private func announceMetadataChanges(_ ids: [DBusObjectPath], state: PlayerState, announce: Bool = true) async {
        let values = await metadata(for: ids, state: state)
        var fresh: [DBusObjectPath: DBusValue] = [:]
        for value in values {
            if let id = value.stringKeyedDictionary?[MPRIS.Metadata.trackID]?.objectPathValue { fresh[id] = value }
        }
        let changed = described.withLock { described in
            defer { described = fresh }
            return fresh.filter { id, value in described[id] != nil && described[id] != value }
        }
        guard announce else { return }
        for id in ids {
            guard let value = changed[id] else { continue }
            emit(MPRIS.TrackListSignal.trackMetadataChanged, [.objectPath(id), value])
        }
    }

    /// The index of the one id that `new` adds to `old`, if that is the whole difference.
    package static func insertion(into old: [DBusObjectPath], giving new: [DBusObjectPath]) -> Int? {
        guard new.count == old.count + 1 else { return nil }
        return new.indices.first { index in
            var without = new
            without.remove(at: index)
            return without == old
        }
    }

    private func emit(_ signal: DBusSignalDescription, _ arguments: [DBusValue]) {
        try? connection.emitSignal(path: MPRIS.objectPath, interface: MPRIS.trackListInterface, member: signal.name, arguments: arguments)
    }

    // MARK: - Metadata

    /// Each id's metadata (ids not in the list are left out, as the spec allows).
    package func metadata(for ids: [DBusObjectPath], state: PlayerState? = nil) async -> [DBusValue] {
        let listed = Set(snapshot)
        var known = state
        if known == nil { known = await controller.currentState() }
        guard let state = known else { return [] }
        var result: [DBusValue] = []
        for id in ids.prefix(Self.maximumTracks * 2) where listed.contains(id) || id == state.track?.trackID.objectPath {
            if id == state.track?.trackID.objectPath {
                result.append(MPRISProperties.metadata(state.track))
            } else if let episodeID = MPRIS.id(in: id, under: MPRIS.episodePathPrefix), let value = await episodeMetadata(episodeID) {
                result.append(value)
            }
        }
        return result
    }

    private func episodeMetadata(_ episodeID: Int64) async -> DBusValue? {
        let library = library
        guard let episode = try? await LibraryWork.lane.run({ () throws(LibraryError) in try library.episode(episodeID) }) else { return nil }
        let remoteArt = episode.episode.artworkURL ?? episode.podcastArtworkURL
        let art = if let remoteArt, let artwork = artwork { await artwork.cachedURI(for: remoteArt, policy: episode.urlPolicy) } else { String?.none }
        var entries: [String: DBusValue] = [
            MPRIS.Metadata.trackID: .objectPath(TrackID.episode(episodeID).objectPath),
            MPRIS.Metadata.title: .string(episode.episode.title),
            MPRIS.Metadata.album: .string(episode.podcastTitle),
            MPRIS.Metadata.episodeID: .int64(episodeID),
            MPRIS.Metadata.podcastID: .int64(episode.podcastId),
        ]
        if let author = episode.episode.author ?? episode.podcastAuthor { entries[MPRIS.Metadata.artist] = .stringArray([author]) }
        if let duration = MediaSeconds.checked(episode.episode.duration), duration > 0 {
            entries[MPRIS.Metadata.length] = .int64(Duration.mediaSeconds(duration).microsecondsSaturating)
        }
        // The file that will play: the preferred format's, where the feed offers it.
        if let url = preferences.audioURL(of: episode) {
            entries[MPRIS.Metadata.url] = .string(url)
        }
        if let art { entries[MPRIS.Metadata.artURL] = .string(art) }
        return .variantDictionary(entries)
    }
}
