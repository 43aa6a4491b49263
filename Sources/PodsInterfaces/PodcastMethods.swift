import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsSession

/// `org.pods.Library2`'s podcast methods: subscribing, listing,
/// refreshing, importing, searching directories, auto-downloads.
enum PodcastMethods {
    static func make(_ session: Session, progress: @escaping Subscriptions.Progress) -> [DBusMethod] {
        let (subscriptions, library, preferences) = (session.subscriptions, session.library, session.preferences)
        let directories = DirectoryService(preferences: preferences)
        /// `subscribed`: the library's subscriptions, read once for a page of
        /// podcasts; left out, read only when this podcast has a podroll.
        @Sendable func podcastItem(_ podcast: Podcast, subscribed: Library.Subscribed? = nil) -> DBusValue {
            let schedule = RefreshSchedule(interval: preferences.value(.refreshInterval, podcast: nil).numberValue ?? 0)
            let subscribed = subscribed ?? (podcast.details.podroll.isEmpty ? nil : try? library.subscribed()) ?? Library.Subscribed()
            return LibraryItemEncoding.podcast(podcast, nextRefresh: schedule.next(for: podcast), subscribed: subscribed).value
        }
        return [
            LibraryMethod.subscribe.handler { arguments throws(DBusError) in
                [podcastItem(try await onBus { () throws(SessionError) in try await subscriptions.subscribe(arguments[0].stringValue ?? "") })]
            },
            LibraryMethod.subscribeWithCredentials.handler { arguments throws(DBusError) in
                let text = arguments.map { $0.stringValue ?? "" }
                return [podcastItem(try await onBus { () throws(SessionError) in
                    try await subscriptions.subscribe(text[0], user: text[1], password: text[2])
                })]
            },
            LibraryMethod.unsubscribe.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in try await subscriptions.unsubscribe(arguments[0].stringValue ?? "") }
                return []
            },
            LibraryMethod.podcast.handler { arguments throws(DBusError) in
                let text = arguments[0].stringValue ?? ""
                return [podcastItem(try await LibraryCall.run { () throws(LibraryError) in try library.podcast(matching: text) })]
            },
            LibraryMethod.listPodcasts.handler { arguments throws(DBusError) in
                // The subscriptions a podroll is marked against, read once for the page, not for each podcast.
                var subscribed: Library.Subscribed?
                return try await LibraryReplies.offsetPaged(arguments, of: .listPodcasts, item: { podcastItem($0, subscribed: subscribed) }) {
                    offset, limit throws(DBusError) in
                    let page = try await LibraryCall.run { () throws(LibraryError) in try library.podcasts(offset: offset, limit: limit) }
                    if page.contains(where: { !$0.details.podroll.isEmpty }) { subscribed = try? library.subscribed() }
                    return page
                }
            },
            LibraryMethod.refresh.handler { arguments throws(DBusError) in
                let text = arguments[0].stringValue ?? ""
                let summaries = try await onBus { () throws(SessionError) in
                    try await subscriptions.refresh(text.isEmpty ? nil : [try await subscriptions.podcastID(text)], progress: progress)
                }
                // Failures and changes first: if a huge library's results pass the
                // reply's bound, only "not modified" lines are left out.
                let ranked = summaries.filter { $0.error != nil } + summaries.filter { $0.error == nil && $0.changed }
                    + summaries.filter { $0.error == nil && !$0.changed }
                return [LibraryReplies.boundedList(ranked, item: { LibraryItemEncoding.refreshResult($0).value })]
            },
            LibraryMethod.importOPML.handler { arguments throws(DBusError) in
                let results = try await onBus { () throws(SessionError) in
                    try await subscriptions.importOPML(arguments[0].stringValue ?? "", progress: progress)
                }
                return [LibraryReplies.boundedList(results) {
                    LibraryItemEncoding.importResult(url: $0.url, podcastId: $0.podcastId, error: $0.error).value
                }]
            },
            LibraryMethod.search.handler { arguments throws(DBusError) in
                let limit = LibraryPaging.itemCount(for: UInt32(clamping: arguments[1].int64Value ?? 0))
                let results = try await onBus { () throws(SessionError) in
                    try await directories.search(arguments[0].stringValue ?? "", limit: min(limit, 200))
                }
                return [LibraryReplies.boundedList(results, item: { LibraryItemEncoding.directoryResult($0).value })]
            },
            LibraryMethod.setAutoDownload.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in
                    try await subscriptions.setAutoDownload(arguments[0].stringValue ?? "", count: Int(arguments[1].int64Value ?? 0))
                }
                return []
            },
        ]
    }
}
