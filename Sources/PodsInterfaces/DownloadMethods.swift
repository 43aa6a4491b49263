import PodsDBus
import PodsProtocol
import PodsSession

/// `org.pods.Library2`'s download and cache methods.
enum DownloadMethods {
    static func make(_ session: Session) -> [DBusMethod] {
        let (downloads, playback) = (session.downloads, session.playback)
        return [
            LibraryMethod.download.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in try await downloads.download(episodeID: arguments[0].int64Value ?? -1, byHand: true) }
                return []
            },
            LibraryMethod.deleteDownload.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in try await downloads.deleteDownload(episodeID: arguments[0].int64Value ?? -1) }
                return []
            },
            LibraryMethod.listDownloads.handler { arguments throws(DBusError) in
                try await LibraryReplies.offsetPaged(arguments, of: .listDownloads, item: { LibraryItemEncoding.download($0).value }) { offset, limit throws(DBusError) in
                    Array(try await onBus { () throws(SessionError) in try await downloads.downloads() }.dropFirst(offset).prefix(limit))
                }
            },
            LibraryMethod.storage.handler { _ throws(DBusError) in
                [LibraryItemEncoding.storage(try await onBus { () throws(SessionError) in try await downloads.storage() }).value]
            },
            LibraryMethod.setCacheBudget.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in try await downloads.setCacheBudget(arguments[0].int64Value ?? -1) }
                return []
            },
            LibraryMethod.cacheStatus.handler { _ throws(DBusError) in
                let status = await playback.cacheStatus()
                return [LibraryItemEncoding.cacheStatus(episodeID: status.episodeID, buffering: status.buffering, cached: status.cached).value]
            },
        ]
    }
}
