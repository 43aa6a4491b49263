import Foundation
import PodsDBus
import PodsLibrary
import PodsProtocol

/// `org.pods.Library2`'s sync methods: SetupSync, Sync, SyncStatus, StopSync.
enum SyncMethods {
    static func make(_ sync: SyncService) -> [DBusMethod] {
        @Sendable func status() async throws(DBusError) -> [DBusValue] {
            [encode(try await sync.account(), queued: try await sync.queuedCount())]
        }
        return [
            LibraryObject.method(.setupSync) { arguments throws(DBusError) in
                let text = arguments.map { $0.stringValue ?? "" }
                _ = try await sync.setup(server: text[0], user: text[1], device: text[2], api: text[3].isEmpty ? "gpodder" : text[3],
                                         password: text[4])
                return try await status()
            },
            LibraryObject.method(.sync) { arguments throws(DBusError) in
                [encode(await sync.sync(full: arguments[0].boolValue ?? false))]
            },
            LibraryObject.method(.syncStatus) { _ throws(DBusError) in try await status() },
            LibraryObject.method(.stopSync) { _ throws(DBusError) in
                try await sync.turnOff()
                return []
            },
        ]
    }

    static func encode(_ result: SyncResult) -> DBusValue {
        var item = ItemBuilder()
        item.set("uploaded", result.uploaded)
        item.set("applied", result.applied)
        item.set("subscribed", result.subscribed)
        item.set("unsubscribed", result.unsubscribed)
        item.set("skipped", result.skipped)
        item.set("queued", result.queued)
        item.set("error", result.error)
        return item.value
    }

    static func encode(_ account: SyncAccount?, queued: Int) -> DBusValue {
        var item = ItemBuilder()
        item.set("enabled", account != nil)
        item.set("server", account?.server)
        item.set("api", account?.api)
        item.set("user", account?.user)
        item.set("device", account?.device)
        item.set("lastSyncAt", date: account?.lastSyncAt)
        item.set("lastError", account?.lastError)
        item.set("queued", queued)
        item.set("clockOffset", account.map(\.clockOffset))
        if let text = account?.lastResult, let last = try? JSONDecoder().decode(SyncResult.self, from: Data(text.utf8)) {
            item.set("last", encode(last))
        }
        return item.value
    }
}
