import PodsDBus
import PodsLibrary
import PodsProtocol

/// The library interface's signals: the library's changes as it announces
/// them (`LibraryChangeFeed`), and a refresh's progress, so no client polls.
/// The only place `org.pods.Library2`'s signals are sent.
package struct LibrarySignalEmitter: Sendable {
    let connection: DBusConnection

    package init(connection: DBusConnection) { self.connection = connection }

    /// Signals each change `library` announces from now on.
    package func follow(_ library: Library) {
        library.changes.follow { changes in emit(changes) }
    }

    /// `PodcastsChanged`, `EpisodesChanged` (per podcast), `EpisodeStatusChanged`
    /// (per episode), `QueueChanged`, `PlaylistsChanged`, `DownloadsChanged` (per
    /// episode), `BookmarksChanged`, `PodcastSettingsChanged`. A kind
    /// with too many ids to name (`everything`) is `PodcastsChanged`: read the lists again.
    func emit(_ changes: LibraryChanges) {
        let unnamed = [changes.episodes, changes.status, changes.downloads].contains(.everything)
        if changes.podcasts || unnamed { emit(LibrarySignal.podcastsChanged) }
        for id in changes.episodes.ids ?? [] { emit(LibrarySignal.episodesChanged, [.int64(id)]) }
        for id in changes.status.ids ?? [] { emit(LibrarySignal.episodeStatusChanged, [.int64(id)]) }
        if changes.queue { emit(LibrarySignal.queueChanged) }
        if changes.playlists { emit(LibrarySignal.playlistsChanged) }
        if changes.bookmarks { emit(LibrarySignal.bookmarksChanged) }
        if changes.podcastSettings { emit(LibrarySignal.podcastSettingsChanged) }
        for id in changes.downloads.ids ?? [] { emit(LibrarySignal.downloadsChanged, [.int64(id)]) }
    }

    package func refreshProgress(_ done: Int, _ total: Int) {
        emit(LibrarySignal.refreshProgress, [.uint32(UInt32(clamping: done)), .uint32(UInt32(clamping: total))])
    }

    private func emit(_ signal: DBusSignalDescription, _ arguments: [DBusValue] = []) {
        try? connection.emitSignal(path: LibraryNames.objectPath, interface: LibraryNames.interface,
                                   member: signal.name, arguments: arguments)
    }
}
