import Foundation
import PodsFeedParser

/// A subscription, as `pods podcasts --json` prints it.
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
}

/// What a refresh of one podcast did.
public struct RefreshSummary: Sendable, Equatable {
    public var podcastId: Int64
    public var title: String
    public var added = 0
    public var updated = 0
    public var removed = 0
    /// True when the server said 304 (nothing parsed).
    public var notModified = false
    public var error: String?

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

// MARK: - JSON

extension Podcast: Encodable {
    private enum Keys: String, CodingKey {
        case id, title, author, feedURL, link, artworkURL, episodeCount, unplayedCount, subscribedAt, lastRefreshedAt, lastError,
             autoDownload
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encode(author, forKey: .author)
        try c.encode(feedURL, forKey: .feedURL)
        try c.encode(link, forKey: .link)
        try c.encode(artworkURL, forKey: .artworkURL)
        try c.encode(episodeCount, forKey: .episodeCount)
        try c.encode(unplayedCount, forKey: .unplayedCount)
        try c.encode(JSONDates.string(subscribedAt), forKey: .subscribedAt)
        try c.encode(lastRefreshedAt.map(JSONDates.string), forKey: .lastRefreshedAt)
        try c.encode(lastError, forKey: .lastError)
        try c.encode(autoDownload, forKey: .autoDownload)
    }
}

extension LibraryEpisode: Encodable {
    private enum Keys: String, CodingKey {
        case id, podcastId, position, completed, lastPlayedAt, currentlyPlaying
    }

    /// The feed contract's keys plus the library's own.
    public func encode(to encoder: any Encoder) throws {
        try episode.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(id, forKey: .id)
        try c.encode(podcastId, forKey: .podcastId)
        try c.encode(position, forKey: .position)
        try c.encode(completed, forKey: .completed)
        try c.encode(lastPlayedAt.map(JSONDates.string), forKey: .lastPlayedAt)
        try c.encode(currentlyPlaying, forKey: .currentlyPlaying)
    }
}

extension RefreshSummary: Encodable {}

/// Dates in JSON as `2024-05-01T08:00:00Z`, like the feed contract.
public enum JSONDates {
    public static func string(_ date: Date) -> String {
        var formatter = Date.ISO8601FormatStyle()
        formatter.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        return date.formatted(formatter)
    }
}
