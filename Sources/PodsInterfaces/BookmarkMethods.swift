import PodsDBus
import PodsProtocol
import PodsSession

/// `org.pods.Library2`'s bookmark methods (`org.pods.Player1.Bookmark` takes one).
enum BookmarkMethods {
    static func make(_ bookmarks: Bookmarks) -> [DBusMethod] {
        [
            LibraryMethod.listBookmarks.handler { arguments throws(DBusError) in
                let episode = arguments[0].int64Value.flatMap { $0 == 0 ? nil : $0 }
                return try await LibraryReplies.offsetPaged(Array(arguments.dropFirst()), of: .listBookmarks,
                                                            item: { LibraryItemEncoding.bookmark($0).value }) { offset, limit throws(DBusError) in
                    try await onBus { () throws(SessionError) in try await bookmarks.list(episode: episode, offset: offset, limit: limit) }
                }
            },
            LibraryMethod.playBookmark.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in try await bookmarks.play(arguments[0].int64Value ?? -1) }
                return []
            },
            LibraryMethod.deleteBookmark.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in try await bookmarks.delete(arguments[0].int64Value ?? -1) }
                return []
            },
        ]
    }
}
