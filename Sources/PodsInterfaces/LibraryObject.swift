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
/// order of `LibraryMethod.all`, and a declared method without exactly one
/// handler stops podsd at start.
package enum LibraryObject {
    /// A declared method without a handler, or a handler for no declared method.
    package struct IncompleteTable: Error, CustomStringConvertible {
        package var description: String
    }

    /// `listingPeer` is the unique name of the connection long listings are served on;
    /// `progress` is told of a refresh's or an import's progress.
    package static func make(_ session: Session, listingPeer: String, progress: @escaping Subscriptions.Progress,
                             logger: Logger) throws(IncompleteTable) -> DBusExportedObject {
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
            name: LibraryNames.interface, methods: try table(handlers, declared: LibraryMethod.all),
            signals: LibrarySignal.all)], executor: LibraryWork.lane)
    }

    /// `handlers` in the order of `declared`, one each.
    package static func table(_ handlers: [DBusMethod], declared: [LibraryMethod]) throws(IncompleteTable) -> [DBusMethod] {
        let byName = Dictionary(grouping: handlers, by: \.name)
        let names = Set(declared.map(\.name))
        let missing = declared.map(\.name).filter { byName[$0]?.count != 1 }
        let undeclared = byName.keys.filter { !names.contains($0) }.sorted()
        guard missing.isEmpty, undeclared.isEmpty else {
            throw IncompleteTable(description: "\(LibraryNames.interface): no single handler for \(missing.joined(separator: ", "))"
                                  + (undeclared.isEmpty ? "" : "; handlers for undeclared \(undeclared.joined(separator: ", "))"))
        }
        return declared.compactMap { byName[$0.name]?.first }
    }
}
