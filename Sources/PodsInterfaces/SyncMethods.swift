import Foundation
import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsSession

/// `org.pods.Library2`'s sync methods: SetupSync, Sync, SyncStatus, StopSync.
package enum SyncMethods {
    package static func make(_ sync: SyncService) -> [DBusMethod] {
        @Sendable func status() async throws(DBusError) -> [DBusValue] {
            try await onBus { () throws(SessionError) in [LibraryItemEncoding.syncStatus(try await sync.account(), queued: try await sync.queuedCount()).value] }
        }
        return [
            LibraryMethod.setupSync.handler { arguments throws(DBusError) in
                let text = arguments.map { $0.stringValue ?? "" }
                _ = try await onBus { () throws(SessionError) in
                    try await sync.setup(server: text[0], user: text[1], device: text[2], api: text[3].isEmpty ? "gpodder" : text[3],
                                         password: text[4])
                }
                return try await status()
            },
            LibraryMethod.sync.handler { arguments throws(DBusError) in
                [LibraryItemEncoding.syncResult(await sync.sync(full: arguments[0].boolValue ?? false)).value]
            },
            LibraryMethod.syncStatus.handler { _ throws(DBusError) in try await status() },
            LibraryMethod.stopSync.handler { _ throws(DBusError) in
                try await onBus { () throws(SessionError) in try await sync.turnOff() }
                return []
            },
        ]
    }
}
