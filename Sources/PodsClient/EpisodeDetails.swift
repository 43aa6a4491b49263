import Foundation
import PodsDBus
import PodsFeedParser

/// An episode's page as a reader meets it: the show notes as paragraphs
/// and links (http, https and mailto only), chapters, soundbites, people,
/// and the show's own people, funding, trailers and recommendations.
/// `pods ui` wraps it to a pane, the window lays it out.
public struct EpisodeDetails: Equatable, Sendable {
    public var episodeID: Int64
    public var title: String
    /// The podcast's title.
    public var podcastTitle = ""
    public var facts: String
    public var paragraphs: [String]
    public var links: [(text: String, url: String)]
    public var chapters: [(index: Int, start: Double, title: String)]
    public var people: [String]
    /// `podcast:soundbite`s: where each starts, and its title.
    public var soundbites: [(start: Double, title: String)] = []
    /// The show's own people and funding links (`podcast:person`, `podcast:funding` of the channel).
    public var showPeople: [String] = []
    public var funding: [(text: String, url: String)] = []
    public var trailers: [(title: String, url: String)] = []
    /// The shows the podcast's podroll recommends: a name, and what subscribes (a feed URL or `guid:…`); nil once subscribed.
    public var recommended: [(name: String, subscribe: String?)] = []
    /// The episode's audio files (the feed's own, then its alternates), with the one that plays (`preferred-format`) marked.
    public var audioFiles: [AudioFile] = []
    /// Whether the feed names a transcript for it (`podcast:transcript`).
    public var hasTranscript = false
    /// Whether it was played to the end, and where it was left.
    public var completed = false
    public var position: Double = 0

    /// One of an episode's audio files.
    public struct AudioFile: Equatable, Sendable {
        public init(url: String, type: String?, bytes: Int64?, title: String?, plays: Bool) {
            (self.url, self.type, self.bytes, self.title, self.plays) = (url, type, bytes, title, plays)
        }

        public var url: String
        public var type: String?
        public var bytes: Int64?
        public var title: String?
        public var plays: Bool
    }

    public init(episodeID: Int64, title: String, facts: String, paragraphs: [String], links: [(text: String, url: String)],
                chapters: [(index: Int, start: Double, title: String)], people: [String]) {
        (self.episodeID, self.title, self.facts, self.paragraphs) = (episodeID, title, facts, paragraphs)
        (self.links, self.chapters, self.people) = (links, chapters, people)
    }

    /// Whether a link may be opened: web and mail links only, never
    /// `javascript:`, `file:` or another program's scheme.
    public static func isOpenable(_ address: String) -> Bool {
        guard let scheme = URL(string: address)?.scheme?.lowercased() else { return false }
        return ["http", "https", "mailto"].contains(scheme)
    }

    public static func == (lhs: EpisodeDetails, rhs: EpisodeDetails) -> Bool {
        lhs.episodeID == rhs.episodeID && lhs.title == rhs.title && lhs.paragraphs == rhs.paragraphs
            && lhs.links.map(\.url) == rhs.links.map(\.url) && lhs.chapters.map(\.start) == rhs.chapters.map(\.start)
            && lhs.soundbites.map(\.start) == rhs.soundbites.map(\.start) && lhs.showPeople == rhs.showPeople
            && lhs.funding.map(\.url) == rhs.funding.map(\.url) && lhs.trailers.map(\.url) == rhs.trailers.map(\.url)
            && lhs.recommended.map(\.name) == rhs.recommended.map(\.name) && lhs.facts == rhs.facts
            && lhs.audioFiles == rhs.audioFiles && lhs.completed == rhs.completed && lhs.position == rhs.position
    }
}

extension PlayerClient {
    /// An episode's page as podsd has it: the episode in full, its merged
    /// chapters and its podcast (whose people and funding the page ends with).
    public func episodeDetails(_ episode: Int64) async throws(PlayerClient.Failure) -> EpisodeDetails? {
        let library = LibraryClient(self)
        let item = try await library.episode(episode)
        let chapters = (try? await PodsPlayerClient(self).chapters(episode: episode)) ?? []
        let podcast = try? await library.podcast(String(Items.fields(item)["podcastId"]?.int64Value ?? 0))
        return Items.page(item, chapters: chapters, podcast: podcast)
    }
}

/// An episode's page from its item.
extension Items {
    /// `podcast`: the episode's podcast item, whose people and funding the page ends with.
    public static func page(_ value: DBusValue, chapters: [DBusValue], podcast: DBusValue? = nil) -> EpisodeDetails? {
        let item = fields(value)
        guard let id = item["id"]?.int64Value else { return nil }
        let show = podcast.map(fields) ?? [:]
        var facts = [item["podcastTitle"]?.stringValue ?? ""]
        // A feed that is no podcast says what it is; a season says its name.
        if let medium = show["medium"]?.stringValue, medium != "podcast" { facts.append(ChannelDetails.mediumName(medium)) }
        if let season = Episode.seasonLabel(number: item["season"]?.int64Value, name: item["seasonName"]?.stringValue) {
            facts.append(season)
        }
        if let published = item["published"]?.int64Value {
            facts.append(Clock.day(unixSeconds: published))
        }
        let duration = item["duration"]?.doubleValue
        if let duration { facts.append(Clock.text(duration)) }
        let position = item["position"]?.doubleValue ?? 0
        if item["completed"]?.boolValue == true { facts.append("played") } else if position > 0 { facts.append("at \(Clock.text(position))") }
        let html = item["descriptionHTML"]?.stringValue
        let paragraphs = html.map(HTMLDocument.paragraphs) ?? [item["description"]?.stringValue ?? ""]
        let links = (html.map(HTMLDocument.links) ?? []).map { (text: $0.text, url: $0.url) }
        let marks = chapters.compactMap { chapter -> (index: Int, start: Double, title: String)? in
            let fields = fields(chapter)
            guard let index = fields["index"]?.int64Value else { return nil }
            // A chapter the podcast's skip-chapters plays past says so.
            let skipped = fields["skipped"]?.boolValue == true ? " (skipped)" : ""
            return (Int(index), fields["start"]?.doubleValue ?? 0, (fields["title"]?.stringValue ?? "") + skipped)
        }
        let people = (item["persons"]?.arrayValue ?? []).map(personLine)
        var page = EpisodeDetails(episodeID: id, title: item["title"]?.stringValue ?? "", facts: facts.joined(separator: " · "),
                               paragraphs: paragraphs, links: links, chapters: marks, people: people)
        page.soundbites = (item["soundbites"]?.arrayValue ?? []).map { soundbite in
            let fields = fields(soundbite)
            return (fields["start"]?.doubleValue ?? 0, fields["title"]?.stringValue ?? "")
        }
        let showDetails = Items.show(podcast)
        (page.showPeople, page.funding, page.trailers, page.recommended) =
            (showDetails.people, showDetails.funding, showDetails.trailers, showDetails.recommended)
        let plays = item["audioURL"]?.stringValue
        page.audioFiles = (item["enclosures"]?.arrayValue ?? []).compactMap { enclosure -> EpisodeDetails.AudioFile? in
            let fields = fields(enclosure)
            guard let url = fields["url"]?.stringValue else { return nil }
            let bytes = fields["length"]?.int64Value.flatMap { $0 > 0 ? $0 : nil }
            return EpisodeDetails.AudioFile(url: url, type: fields["type"]?.stringValue, bytes: bytes, title: fields["title"]?.stringValue, plays: url == plays)
        }
        page.podcastTitle = item["podcastTitle"]?.stringValue ?? ""
        page.hasTranscript = item["transcriptURL"]?.stringValue.map { !$0.isEmpty } ?? false
        page.completed = item["completed"]?.boolValue == true
        page.position = position
        return page
    }
}

/// What a podcast's page shows of the show itself: its people, funding
/// links, trailers and the shows its podroll recommends.
public struct ShowDetails: Sendable {
    public var people: [String] = []
    public var funding: [(text: String, url: String)] = []
    public var trailers: [(title: String, url: String)] = []
    /// A name, and what subscribes (a feed URL or `guid:…`); nil once subscribed.
    public var recommended: [(name: String, subscribe: String?)] = []
}

extension Items {
    /// The show's own details from its `podcast` item (none without one).
    public static func show(_ podcast: DBusValue?) -> ShowDetails {
        let show = podcast.map(fields) ?? [:]
        var details = ShowDetails()
        details.recommended = (show["podroll"]?.arrayValue ?? []).map { remote in
            let fields = fields(remote)
            let guid = fields["feedGuid"]?.stringValue ?? ""
            let name = fields["title"]?.stringValue ?? fields["feedURL"]?.stringValue ?? "podcast:guid \(guid)"
            let subscribed = fields["subscribed"]?.boolValue == true
            return (name, subscribed ? nil : fields["feedURL"]?.stringValue ?? "guid:\(guid)")
        }
        details.people = (show["persons"]?.arrayValue ?? []).map(personLine)
        details.trailers = (show["trailers"]?.arrayValue ?? []).compactMap { trailer in
            let fields = fields(trailer)
            return fields["url"]?.stringValue.map { (fields["title"]?.stringValue ?? $0, $0) }
        }
        details.funding = (show["funding"]?.arrayValue ?? []).compactMap { link in
            let fields = fields(link)
            return fields["url"]?.stringValue.map { (fields["text"]?.stringValue ?? "", $0) }
        }
        return details
    }

    /// "Name (role)".
    static func personLine(_ person: DBusValue) -> String {
        let fields = fields(person)
        return (fields["name"]?.stringValue ?? "") + (fields["role"]?.stringValue.map { " (\($0))" } ?? "")
    }
}
