import Foundation

/// A parsed podcast feed, as `pods inspect --json` prints it (the README's
/// JSON contract: every key always present, `null` where unknown).
public struct Feed: Sendable, Equatable {
    public var title = ""
    public var link: String?
    public var description: String?
    public var descriptionHTML: String?
    public var author: String?
    public var artworkURL: String?
    public var language: String?
    /// `episodic` or `serial`.
    public var type: String?
    public var explicit: Bool?
    public var newFeedURL: String?
    public var fundingURL: String?
    public var locked: Bool?
    /// Each category with its subcategories: `[["Technology"], ["Society & Culture", "History"]]`.
    public var categories: [[String]] = []
    /// In feed order.
    public var episodes: [Episode] = []

    public init() {}
}

/// One item or entry.
public struct Episode: Sendable, Equatable {
    public var guid = ""
    public var title = ""
    public var link: String?
    /// Plain text: HTML stripped, whitespace squashed.
    public var description = ""
    /// The HTML, when the source had HTML.
    public var descriptionHTML: String?
    public var published: Date?
    /// Seconds.
    public var duration: Double?
    public var enclosures: [Enclosure] = []
    public var artworkURL: String?
    public var season: Int?
    public var number: Int?
    /// `full`, `trailer` or `bonus`.
    public var episodeType: String?
    public var explicit: Bool?
    public var author: String?
    public var chapters: [Chapter] = []
    public var chaptersURL: String?
    public var transcriptURL: String?
    public var persons: [Person] = []

    public init() {}
}

public struct Enclosure: Sendable, Equatable {
    public var url: String
    public var type: String?
    public var length: Int?

    public init(url: String, type: String?, length: Int?) {
        self.url = url
        self.type = type
        self.length = length
    }
}

/// A Podlove Simple Chapter.
public struct Chapter: Sendable, Equatable {
    /// Seconds from the start.
    public var start: Double
    public var title: String
    public var url: String?
    public var image: String?
}

/// A `podcast:person`.
public struct Person: Sendable, Equatable {
    public var name: String
    public var role: String?
    public var group: String?
    public var url: String?
    public var image: String?
}

// MARK: - JSON

extension Feed: Encodable {
    private enum Keys: String, CodingKey {
        case title, link, description, descriptionHTML, author, artworkURL, language, type, explicit
        case newFeedURL, fundingURL, locked, categories, episodes
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(title, forKey: .title)
        try c.encode(link, forKey: .link)
        try c.encode(description, forKey: .description)
        try c.encode(descriptionHTML, forKey: .descriptionHTML)
        try c.encode(author, forKey: .author)
        try c.encode(artworkURL, forKey: .artworkURL)
        try c.encode(language, forKey: .language)
        try c.encode(type, forKey: .type)
        try c.encode(explicit, forKey: .explicit)
        try c.encode(newFeedURL, forKey: .newFeedURL)
        try c.encode(fundingURL, forKey: .fundingURL)
        try c.encode(locked, forKey: .locked)
        try c.encode(categories, forKey: .categories)
        try c.encode(episodes, forKey: .episodes)
    }
}

extension Episode: Encodable {
    private enum Keys: String, CodingKey {
        case guid, title, link, description, descriptionHTML, published, duration, enclosures, artworkURL
        case season, number, episodeType, explicit, author, chapters, chaptersURL, transcriptURL, persons
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(guid, forKey: .guid)
        try c.encode(title, forKey: .title)
        try c.encode(link, forKey: .link)
        try c.encode(description, forKey: .description)
        try c.encode(descriptionHTML, forKey: .descriptionHTML)
        try c.encode(published.map(FeedDates.iso8601), forKey: .published)
        try c.encode(duration, forKey: .duration)
        try c.encode(enclosures, forKey: .enclosures)
        try c.encode(artworkURL, forKey: .artworkURL)
        try c.encode(season, forKey: .season)
        try c.encode(number, forKey: .number)
        try c.encode(episodeType, forKey: .episodeType)
        try c.encode(explicit, forKey: .explicit)
        try c.encode(author, forKey: .author)
        try c.encode(chapters, forKey: .chapters)
        try c.encode(chaptersURL, forKey: .chaptersURL)
        try c.encode(transcriptURL, forKey: .transcriptURL)
        try c.encode(persons, forKey: .persons)
    }
}

extension Enclosure: Encodable {
    fileprivate enum CodingKeys: String, CodingKey { case url, type, length }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(url, forKey: .url)
        try c.encode(type, forKey: .type)
        try c.encode(length, forKey: .length)
    }
}

/// Reads what `encode(to:)` writes (the library keeps these as JSON).
extension Enclosure: Decodable {}

extension Chapter: Encodable {
    fileprivate enum CodingKeys: String, CodingKey { case start, title, url, image }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(start, forKey: .start)
        try c.encode(title, forKey: .title)
        try c.encode(url, forKey: .url)
        try c.encode(image, forKey: .image)
    }
}

/// Reads what `encode(to:)` writes (the library keeps these as JSON).
extension Chapter: Decodable {}

extension Person: Encodable {
    fileprivate enum CodingKeys: String, CodingKey { case name, role, group, url, image }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(role, forKey: .role)
        try c.encode(group, forKey: .group)
        try c.encode(url, forKey: .url)
        try c.encode(image, forKey: .image)
    }
}

/// Reads what `encode(to:)` writes (the library keeps these as JSON).
extension Person: Decodable {}
