import Foundation

/// What Podcasting 2.0 says of a show beyond its title and artwork: its
/// lasting identity, what kind of feed it is, how often it comes out, who
/// makes it, how to support it, its trailers, and the shows it recommends.
/// The library keeps it whole as JSON (`jsonText`), read back by `Decodable`.
public struct ChannelDetails: Sendable, Equatable {
    /// `podcast:guid`: the show's identity wherever its feed moves (by the
    /// namespace, a UUIDv5 of its first feed URL).
    public var guid: String?
    /// `podcast:medium`: podcast, music, video, film, audiobook, newsletter,
    /// blog, or a list of them (`podcastL`, `musicL`, …); lowercased as the
    /// namespace spells it, unknown words dropped.
    public var medium: String?
    /// `podcast:updateFrequency`.
    public var updateFrequency: UpdateFrequency?
    /// `podcast:funding`, in feed order.
    public var funding: [Funding] = []
    /// The channel's `podcast:person`s (hosts, for the most part).
    public var persons: [Person] = []
    /// `podcast:trailer`s, in feed order.
    public var trailers: [Trailer] = []
    /// The shows a `podcast:podroll` recommends.
    public var podroll: [RemoteItem] = []

    public init() {}

    /// The media the namespace names (its `L` forms are lists of that medium's feeds).
    public static let media: Set<String> = ["podcast", "music", "video", "film", "audiobook", "newsletter", "blog", "publisher", "course",
                                            "mixed", "podcastl", "musicl", "videol", "filml", "audiobookl", "newsletterl", "blogl",
                                            "publisherl", "coursel"]

    /// What a page calls a medium: "music", or for a list "a list of podcasts".
    public static func mediumName(_ medium: String) -> String {
        guard medium.hasSuffix("l"), medium.count > 1 else { return medium }
        return "a list of \(medium.dropLast())s"
    }

    /// How many of each list a feed may give (a hostile feed's ten thousand
    /// funding links are not kept).
    public static let listLimit = 50
}

/// `podcast:updateFrequency`: when the show says it comes out.
public struct UpdateFrequency: Sendable, Equatable {
    /// The feed's own words ("Every weekday").
    public var text: String?
    /// The iCalendar rule as written (`FREQ=WEEKLY;INTERVAL=2`).
    public var rule: String?
    /// `complete="true"`: no more episodes are planned.
    public var complete = false

    public init(text: String?, rule: String?, complete: Bool) {
        self.text = text
        self.rule = rule
        self.complete = complete
    }

    /// Seconds between episodes the rule says (FREQ and INTERVAL; a
    /// BYDAY list of several days a week divides the week), nil for a rule
    /// without a frequency it understands. Between an hour and a year.
    public var period: TimeInterval? {
        guard let rule else { return nil }
        var parts: [String: String] = [:]
        for part in rule.uppercased().split(separator: ";").prefix(20) {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { parts[String(pair[0]).trimmingCharacters(in: .whitespaces)] = String(pair[1]) }
        }
        let unit: TimeInterval? = switch parts["FREQ"] {
        case "HOURLY": 3600
        case "DAILY": 86400
        case "WEEKLY": 7 * 86400
        case "MONTHLY": 30 * 86400
        case "YEARLY": 365 * 86400
        default: nil
        }
        guard let unit else { return nil }
        // An interval is a small positive whole number; anything else is 1.
        let interval = parts["INTERVAL"].flatMap { Int($0.prefix(4)) }.flatMap { (1...1000).contains($0) ? $0 : nil } ?? 1
        var period = unit * Double(interval)
        if parts["FREQ"] == "WEEKLY", interval == 1, let days = parts["BYDAY"]?.split(separator: ",").count, (2...7).contains(days) {
            period /= Double(days)
        }
        return min(max(period, 3600), 365 * 86400)
    }
}

/// A `podcast:funding` link.
public struct Funding: Sendable, Equatable {
    public var url: String
    /// What the feed calls it ("Support the show on Patreon").
    public var text: String?

    public init(url: String, text: String?) {
        self.url = url
        self.text = text
    }
}

/// A `podcast:trailer`: a short piece of audio that is not an episode.
public struct Trailer: Sendable, Equatable {
    public var url: String
    public var title: String
    public var type: String?
    public var length: Int?
    public var published: Date?
    /// The season it introduces, if it introduces one.
    public var season: Int?

    public init(url: String, title: String, type: String? = nil, length: Int? = nil, published: Date? = nil, season: Int? = nil) {
        self.url = url
        self.title = title
        self.type = type
        self.length = length
        self.published = published
        self.season = season
    }
}

/// A `podcast:remoteItem`: another feed (or an item of one) named by its
/// `podcast:guid` and, when the feed gives it, its URL.
public struct RemoteItem: Sendable, Equatable {
    public var feedGuid: String
    public var feedURL: String?
    public var itemGuid: String?
    public var medium: String?
    /// The feed's own name for it, when it says (`title`, not in the namespace's attributes but common).
    public var title: String?

    public init(feedGuid: String, feedURL: String?, itemGuid: String? = nil, medium: String? = nil, title: String? = nil) {
        self.feedGuid = feedGuid
        self.feedURL = feedURL
        self.itemGuid = itemGuid
        self.medium = medium
        self.title = title
    }
}

/// A `podcast:soundbite`: a moment of an episode worth hearing on its own.
public struct Soundbite: Sendable, Equatable {
    /// Seconds from the start.
    public var start: Double
    public var duration: Double
    public var title: String?

    public init(start: Double, duration: Double, title: String?) {
        self.start = start
        self.duration = duration
        self.title = title
    }
}

// MARK: - Reading back what the library stored

extension Soundbite: Decodable {
    fileprivate enum CodingKeys: String, CodingKey { case start, duration, title }
}

extension ChannelDetails: Decodable {
    fileprivate enum CodingKeys: String, CodingKey { case guid, medium, updateFrequency, funding, persons, trailers, podroll }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guid = try container.decodeIfPresent(String.self, forKey: .guid)
        medium = try container.decodeIfPresent(String.self, forKey: .medium)
        updateFrequency = try container.decodeIfPresent(UpdateFrequency.self, forKey: .updateFrequency)
        funding = try container.decodeIfPresent([Funding].self, forKey: .funding) ?? []
        persons = try container.decodeIfPresent([Person].self, forKey: .persons) ?? []
        trailers = try container.decodeIfPresent([Trailer].self, forKey: .trailers) ?? []
        podroll = try container.decodeIfPresent([RemoteItem].self, forKey: .podroll) ?? []
    }
}

extension UpdateFrequency: Decodable {
    fileprivate enum CodingKeys: String, CodingKey { case text, rule, complete }
}

extension Funding: Decodable {
    fileprivate enum CodingKeys: String, CodingKey { case url, text }
}

extension Trailer: Decodable {
    fileprivate enum CodingKeys: String, CodingKey { case url, title, type, length, published, season }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(String.self, forKey: .url)
        title = try container.decode(String.self, forKey: .title)
        type = try container.decodeIfPresent(String.self, forKey: .type)
        length = try container.decodeIfPresent(Int.self, forKey: .length)
        published = try container.decodeIfPresent(String.self, forKey: .published).flatMap(FeedDates.parse)
        season = try container.decodeIfPresent(Int.self, forKey: .season)
    }
}

extension RemoteItem: Decodable {
    fileprivate enum CodingKeys: String, CodingKey { case feedGuid, feedURL, itemGuid, medium, title }
}
