import Foundation
import Logging
import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsSession

/// `/org/pods/Library`: the `org.pods.Library2` interface, everything the
/// CLI does with the library. Items are typed `a{sv}` values (their keys in
/// `LibraryItems`); every list is paged and bounded (`LibraryPaging`), so no
/// reply grows with the library. Changes are announced with signals that
/// carry ids (`LibrarySignalEmitter`, following the library's changes).
///
/// The interface is a table: each handler decodes its arguments, makes one
/// session call and encodes the answer (`PodcastMethods`, `EpisodeMethods`,
/// `QueueMethods`, `DownloadMethods`, `SyncMethods`). It is built in the
/// order of `LibraryMethod.all` (`MethodTable`).
package enum LibraryObject {
    /// `listingPeer` is the unique name of the connection long listings are served on;
    /// `progress` is told of a refresh's or an import's progress.
    package static func make(_ session: Session, listingPeer: String, progress: @escaping Subscriptions.Progress,
                             logger: Logger) throws(MethodTable.Incomplete) -> DBusExportedObject {
        let handlers = PodcastMethods.make(session, progress: progress)
            + EpisodeMethods.make(session, logger: logger)
            + QueueMethods.make(session.edits, library: session.library)
            + DownloadMethods.make(session)
            + SyncMethods.make(session.sync)
            + BookmarkMethods.make(session.bookmarks)
            + ListeningMethods.make(session.listening)
            + PlaylistMethods.make(session.playlists)
            + [LibraryMethod.listingPeer.handler { _ throws(DBusError) in [.string(listingPeer)] }]
        return DBusExportedObject(path: LibraryNames.objectPath, interfaces: [DBusInterface(
            name: LibraryNames.interface, methods: try MethodTable.build(handlers, declared: LibraryMethod.all, interface: LibraryNames.interface),
            signals: LibrarySignal.all)], executor: LibraryWork.lane)
    }
}
