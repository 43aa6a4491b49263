import Foundation
import PodsDBus
import PodsProtocol
import PodsSession

/// `org.pods.Library2`'s listening log: what `pods stats` reads.
enum ListeningMethods {
    static func make(_ log: ListeningLog) -> [DBusMethod] {
        [
            LibraryMethod.listeningStats.handler { arguments throws(DBusError) in
                let since = date(arguments[0])
                return [LibraryItemEncoding.listeningStats(try await onBus { () throws(SessionError) in try await log.stats(since: since) }).value]
            },
            LibraryMethod.listPlaySessions.handler { arguments throws(DBusError) in
                let since = date(arguments[0])
                return try await LibraryReplies.offsetPaged(Array(arguments.dropFirst()), of: .listPlaySessions,
                                                            item: { LibraryItemEncoding.playSession($0).value }) { offset, limit throws(DBusError) in
                    try await onBus { () throws(SessionError) in try await log.sessions(since: since, offset: offset, limit: limit) }
                }
            },
        ]
    }

    /// `x since`: Unix seconds; 0 or less is the whole log.
    private static func date(_ value: DBusValue) -> Date? {
        guard let seconds = value.int64Value, seconds > 0 else { return nil }
        return Date(timeIntervalSince1970: Double(seconds))
    }
}
