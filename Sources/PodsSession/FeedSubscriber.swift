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
        guard given != nil else { return podcast }
        do throws(SessionError) { try await credentials?.keep(podcast.feedURL) } catch {
            // Kept whole or not at all: a keyring prompt dismissed or unanswered left the podcast
            // subscribed without its password, though the error said nothing was kept (ADVERSARIAL-5, 4).
            credentials?.restore(before, for: FeedRefresher.normalized(url))
            let library = refresher.library
            _ = try? await LibraryWork.run { () throws(LibraryError) in try library.unsubscribe(podcast.id, ifAt: podcast.feedURL) }
            throw error
        }
        return podcast
    }
}
