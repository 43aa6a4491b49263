import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsSession

/// `org.pods.Library2`'s queue methods.
enum QueueMethods {
    static func make(_ edits: LibraryEdits, library: Library) -> [DBusMethod] {
        [
            LibraryMethod.listQueue.handler { arguments throws(DBusError) in
                try await LibraryReplies.offsetPaged(arguments, of: .listQueue, item: { LibraryItemEncoding.summary($0).value }) { offset, limit throws(DBusError) in
                    try await LibraryCall.run { () throws(LibraryError) in try library.queue(offset: offset, limit: limit) }
                }
            },
            LibraryMethod.queueAdd.handler { arguments throws(DBusError) in
                let ids = arguments[0].arrayValue?.compactMap(\.int64Value) ?? []
                let index = arguments[1].int64Value.flatMap { $0 >= 0 ? Int($0) : nil }
                try await onBus { () throws(SessionError) in try await edits.enqueue(ids, at: index) }
                return []
            },
            LibraryMethod.queueRemove.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in try await edits.dequeue(arguments[0].int64Value ?? -1) }
                return []
            },
            LibraryMethod.queueMove.handler { arguments throws(DBusError) in
                let index = Int(arguments[1].int64Value ?? 0)
                try await onBus { () throws(SessionError) in try await edits.move(arguments[0].int64Value ?? -1, to: index) }
                return []
            },
            LibraryMethod.queueClear.handler { _ throws(DBusError) in
                try await onBus { () throws(SessionError) in try await edits.clearQueue() }
                return []
            },
        ]
    }
}
