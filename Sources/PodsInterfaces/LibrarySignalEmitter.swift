import PodsDBus
import PodsProtocol
import PodsSession

/// The library interface's signals: what the session tells clients of
/// changes, so no client polls.
package struct LibrarySignalEmitter: LibraryEventSink {
    let connection: DBusConnection

    package init(connection: DBusConnection) { self.connection = connection }

    package func podcastsChanged() { emit(LibrarySignal.podcastsChanged) }
    package func episodesChanged(_ podcastID: Int64) { emit(LibrarySignal.episodesChanged, [.int64(podcastID)]) }
    package func statusChanged(_ episodeID: Int64) { emit(LibrarySignal.episodeStatusChanged, [.int64(episodeID)]) }
    package func queueChanged() { emit(LibrarySignal.queueChanged) }
    package func downloadsChanged(_ episodeID: Int64) { emit(LibrarySignal.downloadsChanged, [.int64(episodeID)]) }
    package func refreshProgress(_ done: Int, _ total: Int) {
        emit(LibrarySignal.refreshProgress, [.uint32(UInt32(clamping: done)), .uint32(UInt32(clamping: total))])
    }

    private func emit(_ signal: DBusSignalDescription, _ arguments: [DBusValue] = []) {
        try? connection.emitSignal(path: LibraryNames.objectPath, interface: LibraryNames.interface,
                                   member: signal.name, arguments: arguments)
    }
}
