import Foundation
import PodsFeeds
import PodsHTTP
import PodsLibrary

/// Subscribing with a password: however the credentials come (typed, in an
/// OPML outline's URL, in a URL another device synced), they go to the
/// credential store and the library keeps the URL without them.
extension LibraryPlayer {
    /// Subscribes to `url`, trying `credentials` for its origin first: kept
    /// (Secret Service, else the 0600 file) when it works, and what the
    /// origin used before put back when it does not.
    package nonisolated func subscribe(_ url: String, credentials: HTTPCredentials?) async throws(SessionError) -> Podcast {
        var before: HTTPCredentials?
        if let credentials {
            guard let store = self.credentials else { throw SessionError.failed("podsd keeps no library, so no passwords") }
            guard HTTPClient.isHTTP(FeedRefresher.normalized(url)) else { throw SessionError.invalidArgument("A user name and password go with http(s) feeds") }
            before = store.use(credentials, for: FeedRefresher.normalized(url))
        }
        let podcast: Podcast
        do throws(LibraryError) { podcast = try await refresher.subscribe(url) } catch {
            // Nothing kept of a failed try, and what worked before stays.
            if credentials != nil { self.credentials?.restore(before, for: FeedRefresher.normalized(url)) }
            throw SessionError.init(error)
        }
        if credentials != nil { try await self.credentials?.keep(podcast.feedURL) }
        return podcast
    }

}
