import Foundation
import PodsFeedParser

/// A subscription.
public struct Podcast: Sendable, Equatable, Identifiable {
    public var id: Int64
    public var feedURL: String
    public var title: String
    public var author: String?
    public var description: String?
    public var artworkURL: String?
    public var link: String?
    public var language: String?
    public var subscribedAt: Date
    public var etag: String?
    public var lastModified: String?
    public var lastRefreshedAt: Date?
    public var lastError: String?
    /// How many of the newest episodes to download after each refresh (0: none).
    public var autoDownload = 0
    /// Refreshes that failed in a row (0 after one that worked).
    public var refreshFailures = 0
    /// `itunes:type serial`: heard in order, so its episodes list oldest first.
    public var serial = false
    /// Podcasting 2.0's guid, medium, update frequency, funding, people,
    /// trailers and podroll, as the last full fetch read them.
    public var details = ChannelDetails()
    /// Computed when listed.
    public var episodeCount = 0
    public var unplayedCount = 0
}

/// An episode in the library: the feed's fields and the listener's status.
public struct LibraryEpisode: Sendable, Equatable, Identifiable {
    public var id: Int64
    public var podcastId: Int64
    /// Everything the feed said about it (the feed JSON contract).
    public var episode: Episode
    /// Where the listener stopped.
    public var position: Double = 0
    public var completed = false
    public var lastPlayedAt: Date?
    /// The one episode the player has loaded (at most one in the library).
    public var currentlyPlaying = false
    /// Still in the feed at the last refresh.
    public var inFeed = true
    /// The podcast's title, author and artwork, for the player's metadata.
    public var podcastTitle = ""
    public var podcastAuthor: String?
    public var podcastArtworkURL: String?
    /// The podcast's own feed: only a podcast whose feed is a local file may
    /// name local files (`urlPolicy`).
    public var podcastFeedURL = ""

    /// What this episode's stored URLs may name: files only when its podcast's
    /// own feed is one (`URLPolicy`); a URL a web feed once named is never read
    /// from disk, whatever a library written before the policy holds.
    public var urlPolicy: URLPolicy { URLPolicy(feedURL: podcastFeedURL) }
}

/// What a refresh of one podcast did.
public struct RefreshSummary: Sendable, Equatable {
    public var podcastId: Int64
    public var title: String
    public var added = 0
    public var updated = 0
    public var removed = 0
    /// Of `added`, those the podcast's rules ignored as they arrived (`ArrivalRule`).
    public var ignored = 0
    /// True when the server said 304 (nothing parsed).
    public var notModified = false
    public var error: String?

    /// Whether episodes were added, updated or removed.
    public var changed: Bool { added + updated + removed > 0 }

    public init(podcastId: Int64, title: String, added: Int = 0, updated: Int = 0, removed: Int = 0,
                notModified: Bool = false, error: String? = nil) {
        self.podcastId = podcastId
        self.title = title
        self.added = added
        self.updated = updated
        self.removed = removed
        self.notModified = notModified
        self.error = error
    }
}
