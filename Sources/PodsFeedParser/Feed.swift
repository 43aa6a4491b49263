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
    public var locked: Bool?
    /// Each category with its subcategories: `[["Technology"], ["Society & Culture", "History"]]`.
    public var categories: [[String]] = []
    /// Podcasting 2.0's guid, medium, update frequency, funding, people, trailers and podroll.
    public var details = ChannelDetails()
    /// In feed order (without the items left out as known, `skippedItems`).
    public var episodes: [Episode] = []
    /// The items not parsed because their fingerprints were known
    /// (`FeedParser.knownItems`): their episodes are as the caller stored them.
    public var skippedItems: [ItemFingerprint] = []

    public init() {}
}

/// One item or entry.
public struct Episode: Sendable, Equatable {
    public var guid = ""
    public var title = ""
    public var link: String?
    /// Plain text: HTML stripped, whitespace squashed. The feed's own plain
    /// text when it had one, else made from `descriptionHTML` when read: a
    /// feed's thousands of descriptions cost nothing until one is read.
    public var description: String {
        get { plainDescription ?? descriptionHTML.map { HTMLText.plainText($0) } ?? "" }
        set { plainDescription = newValue }
    }
    /// The plain text the feed gave (squashed); nil when `description` is
    /// made from the HTML.
    public var plainDescription: String?
    /// The HTML, when the source had HTML.
    public var descriptionHTML: String?
    public var published: Date?
    /// Seconds.
    public var duration: Double?
    public var enclosures: [Enclosure] = []
    public var artworkURL: String?
    public var season: Int?
    /// `podcast:season`'s `name` ("Egypt").
    public var seasonName: String?
    public var number: Int?
    /// `full`, `trailer` or `bonus`.
    public var episodeType: String?
    public var explicit: Bool?
    public var author: String?
    public var chapters: [Chapter] = []
    public var chaptersURL: String?
    public var transcriptURL: String?
    public var persons: [Person] = []
    public var soundbites: [Soundbite] = []
    /// The fingerprint of the item's bytes, when the parser was asked for
    /// them (`FeedParser.knownItems`) and the document parsed without error.
    public var fingerprint: ItemFingerprint?

    public init() {}

    /// A season as a page says it: "season 3 (Egypt)", "season 3", "season Egypt"; nil for none.
    public static func seasonLabel(number: Int64?, name: String?) -> String? {
        switch (number, name) {
        case (let number?, let name?): "season \(number) (\(name))"
        case (let number?, nil): "season \(number)"
        case (nil, let name?): "season \(name)"
        case (nil, nil): nil
        }
    }
}

/// The item's `enclosure` (first), then each `podcast:alternateEnclosure`
/// (its first web source) and Media RSS content; `EnclosureChoice` picks
/// the one played.
public struct Enclosure: Sendable, Equatable {
    public var url: String
    public var type: String?
    public var length: Int?
    /// Bits per second (`podcast:alternateEnclosure`'s `bitrate`).
    public var bitrate: Double?
    /// An alternate's name for itself ("High quality", "Spanish").
    public var title: String?

    public init(url: String, type: String?, length: Int?, bitrate: Double? = nil, title: String? = nil) {
        self.url = url
        self.type = type
        self.length = length
        self.bitrate = bitrate
        self.title = title
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

// MARK: - Reading back what the library stored

/// The library keeps enclosures, chapters and people as the JSON that
/// `writeJSON(to:)` writes; these read it back.
extension Enclosure: Decodable {
    fileprivate enum CodingKeys: String, CodingKey { case url, type, length, bitrate, title }
}

extension Chapter: Decodable {
    fileprivate enum CodingKeys: String, CodingKey { case start, title, url, image }
}

extension Person: Decodable {
    fileprivate enum CodingKeys: String, CodingKey { case name, role, group, url, image }
}
