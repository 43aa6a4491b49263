import ArgumentParser
import Foundation
import PodsClient
import PodsDBus
import PodsFeedParser
import PodsProtocol

/// `pods podcast`: what a show says of itself through Podcasting 2.0.
struct PodcastPage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podcast",
        abstract: "A podcast's page: what kind of feed it is, how often it comes out, its people, how to support it, its trailers and the shows it recommends.")

    @Argument(help: "A podcast's id or title prefix.") var podcast: String
    @OptionGroup var format: OutputFormat

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let item = try await library.podcast(podcast)
            if format.json { return ItemOutput.print(item, LibraryItems.podcast) }
            print(Self.page(item))
        }
    }

    static func page(_ item: DBusValue) -> String {
        var lines = [item["title"].text]
        var facts = [item["author"]?.stringValue].compactMap { $0 }
        if let medium = item["medium"]?.stringValue, medium != "podcast" { facts.append(ChannelDetails.mediumName(medium)) }
        facts.append("\(item["unplayedCount"].int) unplayed of \(item["episodeCount"].int)")
        lines.append(facts.joined(separator: " · "))
        lines.append(item["feedURL"].text)
        if item["complete"]?.boolValue == true {
            lines.append("Complete: no more episodes are planned")
        } else if let frequency = item["updateFrequency"]?.stringValue ?? item["updateRule"]?.stringValue {
            lines.append("Comes out: \(frequency)")
        }
        if let link = item["link"]?.stringValue { lines.append("Web: \(link)") }
        let people = item["persons"]?.arrayValue ?? []
        if !people.isEmpty {
            lines += ["", "People"]
            for person in people {
                lines.append("  " + person["name"].text + (person["role"]?.stringValue.map { " (\($0))" } ?? "")
                             + (person["url"]?.stringValue.map { "  \($0)" } ?? ""))
            }
        }
        let funding = item["funding"]?.arrayValue ?? []
        if !funding.isEmpty {
            lines += ["", "Support the show"]
            for link in funding { lines.append("  " + (link["text"]?.stringValue.map { "\($0)  " } ?? "") + link["url"].text) }
        }
        let trailers = item["trailers"]?.arrayValue ?? []
        if !trailers.isEmpty {
            lines += ["", "Trailers"]
            for trailer in trailers {
                let season = trailer["season"]?.int64Value.map { " (season \($0))" } ?? ""
                lines.append("  \(trailer["title"].text)\(season)  pods play \(trailer["url"].text)")
            }
        }
        let podroll = item["podroll"]?.arrayValue ?? []
        if !podroll.isEmpty {
            lines += ["", "Recommended shows"]
            for show in podroll {
                let name = show["title"]?.stringValue ?? show["feedURL"]?.stringValue ?? "A show"
                let action: String
                if show["subscribed"]?.boolValue == true {
                    action = "subscribed"
                } else if let url = show["feedURL"]?.stringValue {
                    action = "pods subscribe \(url)"
                } else {
                    action = "pods subscribe guid:\(show["feedGuid"].text)"
                }
                lines.append("  \(name)  \(action)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
