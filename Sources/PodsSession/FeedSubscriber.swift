import Foundation
import PodsFeeds
import PodsHTTP
import PodsLibrary

/// Subscribing with a password: however the credentials come (typed, in an
/// OPML outline's URL, in a URL another device synced), they go to the
/// credential store and the library keeps the URL without them. Used by
/// `Subscriptions` and by the sync alike.
package struct FeedSubscriber: Sendable {
    let refresher: FeedRefresher
    /// Private feeds' user names and passwords; nil: podsd keeps none.
    let credentials: CredentialStore?

    package init(refresher: FeedRefresher, credentials: CredentialStore?) {
        self.refresher = refresher
        self.credentials = credentials
    }

    /// Subscribes to `url`, trying `credentials` for its origin first: kept
    /// (Secret Service, else the 0600 file) when it works, and what the
    /// origin used before put back when it does not.
    package func subscribe(_ url: String, credentials given: HTTPCredentials?) async throws(SessionError) -> Podcast {
        var before: HTTPCredentials?
        if let given {
            guard let store = credentials else { throw SessionError.failed("podsd keeps no library, so no passwords") }
            guard HTTPClient.isHTTP(FeedRefresher.normalized(url)) else { throw SessionError.invalidArgument("A user name and password go with http(s) feeds") }
            before = store.use(given, for: FeedRefresher.normalized(url))
        }
        let podcast: Podcast
        do throws(LibraryError) { podcast = try await refresher.subscribe(url) } catch {
            // Nothing kept of a failed try, and what worked before stays.
            if given != nil { credentials?.restore(before, for: FeedRefresher.normalized(url)) }
            throw SessionError(error)
        }
        if given != nil { try await credentials?.keep(podcast.feedURL) }
        return podcast
    }
}
