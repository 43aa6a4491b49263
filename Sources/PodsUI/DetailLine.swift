import Foundation
import PodsClient
import PodsDBus
import PodsFeedParser

/// One line of the details pane; some lines do something on Enter.
public struct DetailLine: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        /// Opens the link with `xdg-open`.
        case open(String)
        /// Jumps to the chapter (from 1) of the episode shown.
        case chapter(Int)
        /// Subscribes to the feed (a search result).
        case subscribe(String)
        /// Plays the episode shown from this many seconds (a soundbite).
        case playFrom(Double)
        /// Plays audio that is no episode (a show's trailer).
        case playURL(String)
    }

    public enum Kind: Equatable, Sendable { case title, heading, text, facts }

    public var text: String
    public var kind: Kind
    public var action: Action?

    public init(_ text: String, _ kind: Kind = .text, action: Action? = nil) {
        self.text = text
        self.kind = kind
        self.action = action
    }
}

/// An episode's page as the details pane shows it.
extension Items {
    /// `podcast`: the episode's podcast item, whose people and funding the page ends with.
    static func page(_ value: DBusValue, chapters: [DBusValue], podcast: DBusValue? = nil) -> EpisodePage? {
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
        let people = (item["persons"]?.arrayValue ?? []).map { person in
            let fields = fields(person)
            return (fields["name"]?.stringValue ?? "") + (fields["role"]?.stringValue.map { " (\($0))" } ?? "")
        }
        var page = EpisodePage(episodeID: id, title: item["title"]?.stringValue ?? "", facts: facts.joined(separator: " · "),
                               paragraphs: paragraphs, links: links, chapters: marks, people: people)
        page.soundbites = (item["soundbites"]?.arrayValue ?? []).map { soundbite in
            let fields = fields(soundbite)
            return (fields["start"]?.doubleValue ?? 0, fields["title"]?.stringValue ?? "")
        }
        page.recommended = (show["podroll"]?.arrayValue ?? []).map { remote in
            let fields = fields(remote)
            let guid = fields["feedGuid"]?.stringValue ?? ""
            let name = fields["title"]?.stringValue ?? fields["feedURL"]?.stringValue ?? "podcast:guid \(guid)"
            let subscribed = fields["subscribed"]?.boolValue == true
            return (name, subscribed ? nil : fields["feedURL"]?.stringValue ?? "guid:\(guid)")
        }
        page.showPeople = (show["persons"]?.arrayValue ?? []).map { person in
            let fields = fields(person)
            return (fields["name"]?.stringValue ?? "") + (fields["role"]?.stringValue.map { " (\($0))" } ?? "")
        }
        page.trailers = (show["trailers"]?.arrayValue ?? []).compactMap { trailer in
            let fields = fields(trailer)
            return fields["url"]?.stringValue.map { (fields["title"]?.stringValue ?? $0, $0) }
        }
        page.funding = (show["funding"]?.arrayValue ?? []).compactMap { link in
            let fields = fields(link)
            return fields["url"]?.stringValue.map { (fields["text"]?.stringValue ?? "", $0) }
        }
        return page
    }
}
