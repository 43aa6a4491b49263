import ArgumentParser
import Foundation
import PodsClient
import PodsDBus
import PodsFeedParser
import PodsProtocol

struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "An episode's page: title, podcast, date, length, progress, show notes with their links, chapters, people, audio.")

    @Argument(help: "The episode's id.") var episode: Int64
    @Flag(help: "Also fetch the episode's transcript (once; podsd keeps it) and print it as timed text.") var transcript = false
    @OptionGroup var format: OutputFormat

    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in
            let library = LibraryClient(player)
            let item = try await library.episode(episode)
            let chapters = (try? await PodsPlayerClient(player).chapters(episode: episode)) ?? []
            var cues: [DBusValue]?
            if transcript {
                var all: [DBusValue] = []
                try await library.transcript(episode: episode) { page in all += page }
                cues = all
            }
            if format.json { return Self.printJSON(item, chapters: chapters, transcript: cues) }
            print(Self.page(item, chapters: chapters, transcript: cues))
        }
    }

    // MARK: - Text

    static func page(_ item: DBusValue, chapters: [DBusValue], transcript: [DBusValue]?) -> String {
        var lines = [item["title"].text]
        var facts = [item["podcastTitle"].text]
        if let published = item["published"]?.int64Value { facts.append(String(JSONDate.string(unixSeconds: published).prefix(10))) }
        let duration = item["duration"]?.doubleValue
        if let duration { facts.append(Status.clock(duration)) }
        facts.append(progress(item, duration: duration))
        lines.append(facts.joined(separator: " · "))
        var details: [String] = []
        if let season = Episode.seasonLabel(number: item["season"]?.int64Value, name: item["seasonName"]?.stringValue) {
            details.append(season)
        }
        if let number = item["number"]?.int64Value { details.append("episode \(number)") }
        if let type = item["episodeType"]?.stringValue, type != "full" { details.append(type) }
        if item["explicit"]?.boolValue == true { details.append("explicit") }
        if !details.isEmpty { lines.append(details.joined(separator: " · ")) }

        let html = item["descriptionHTML"]?.stringValue
        let paragraphs = html.map(HTMLDocument.paragraphs) ?? [item["description"].text]
        for paragraph in paragraphs where !paragraph.isEmpty { lines.append(""); lines += wrap(paragraph, width: 78) }
        let links = html.map(HTMLDocument.links) ?? []
        if !links.isEmpty {
            lines += ["", "Links"]
            for (index, link) in links.enumerated() {
                lines.append("  [\(index + 1)] " + (link.text.isEmpty || link.text == link.url ? link.url : "\(link.text)  \(link.url)"))
            }
        }
        if !chapters.isEmpty {
            lines += ["", "Chapters"]
            for chapter in chapters {
                lines.append("  \(Podcasts.padded(chapter["index"].int, 3))  \(Status.clock(chapter["start"]?.doubleValue ?? 0))  \(chapter["title"].text)")
            }
        }
        let people = item["persons"]?.arrayValue ?? []
        if !people.isEmpty {
            lines += ["", "People"]
            for person in people {
                lines.append("  " + person["name"].text + (person["role"]?.stringValue.map { " (\($0))" } ?? ""))
            }
        }
        let soundbites = item["soundbites"]?.arrayValue ?? []
        if !soundbites.isEmpty {
            lines += ["", "Soundbites"]
            for soundbite in soundbites {
                let start = soundbite["start"]?.doubleValue ?? 0
                lines.append("  \(Status.clock(start))  \(Status.clock(soundbite["duration"]?.doubleValue ?? 0))  "
                             + "\(soundbite["title"]?.stringValue ?? "")  (pods play \(item["id"].int) --at \(Status.clock(start)))")
            }
        }
        lines.append("")
        let enclosures = item["enclosures"]?.arrayValue ?? []
        for enclosure in enclosures {
            var about = [enclosure["title"]?.stringValue, enclosure["type"]?.stringValue].compactMap { $0 }
            if let bitrate = enclosure["bitrate"]?.doubleValue, bitrate.isFinite, (1...1e9).contains(bitrate) {
                about.append("\(Int(bitrate / 1000)) kbit/s")
            }
            if let length = enclosure["length"]?.int64Value, length > 0 {
                about.append(ByteCountFormatter.string(fromByteCount: length, countStyle: .file))
            }
            // Of several, the one that plays (preferred-format) is marked.
            let plays = enclosures.count > 1 && enclosure["url"]?.stringValue == item["audioURL"]?.stringValue ? "  ← plays" : ""
            lines.append("Audio  \(enclosure["url"].text)" + (about.isEmpty ? "" : "  (\(about.joined(separator: ", ")))") + plays)
        }
        if let url = item["transcriptURL"]?.stringValue, transcript == nil {
            lines.append("Transcript  \(url)  (pods show \(item["id"].int) --transcript)")
        }
        if let transcript {
            lines += ["", "Transcript"]
            for cue in transcript {
                lines += wrap(cueText(start: cue["start"]?.doubleValue, speaker: cue["speaker"]?.stringValue, text: cue["text"].text),
                              width: 78, indent: "  ")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A transcript line as `pods show --transcript` and `pods transcript` print it: `[1:02] Speaker: text`.
    static func cueText(start: Double?, speaker: String?, text: String) -> String {
        (start.map { "[\(Status.clock($0))] " } ?? "") + (speaker.map { "\($0): " } ?? "") + text
    }

    static func progress(_ item: DBusValue, duration: Double?) -> String {
        if item["currentlyPlaying"]?.boolValue == true { return "playing" }
        if item["completed"]?.boolValue == true { return "played" }
        let position = item["position"]?.doubleValue ?? 0
        guard position > 0 else { return "unplayed" }
        let share = MediaSeconds.checked(duration).map { total in
            String(format: " (%d%%)", Int(min(1, (MediaSeconds.checked(position) ?? 0) / max(total, 1)) * 100))
        } ?? ""
        return "\(Status.clock(position)) in\(share)"
    }

    /// Words wrapped to `width` columns.
    static func wrap(_ text: String, width: Int, indent: String = "") -> [String] {
        var lines: [String] = []
        var line = indent
        for word in text.split(separator: " ") {
            if line.count > indent.count, line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " " : "") + word
        }
        if line.count > indent.count { lines.append(line) }
        return lines
    }

    // MARK: - JSON

    static func printJSON(_ item: DBusValue, chapters: [DBusValue], transcript: [DBusValue]?) {
        var json = ItemJSON()
        json.raw("{\"episode\":")
        json.item(item, LibraryItems.episode)
        json.raw(",\"links\":[")
        let links = item["descriptionHTML"]?.stringValue.map(HTMLDocument.links) ?? []
        for (index, link) in links.enumerated() {
            if index > 0 { json.raw(",") }
            json.item(.variantDictionary(["text": .string(link.text), "url": .string(link.url)]), Self.link)
        }
        json.raw("],\"chapters\":")
        json.items(chapters, PlayerItems.chapter)
        json.raw(",\"transcript\":")
        if let transcript { json.items(transcript, LibraryItems.cue) } else { json.raw("null") }
        json.raw("}\n")
        StandardOutput.write(json.bytes)
    }

    static let link = ItemSchema("link", [ItemField("text", .string), ItemField("url", .string)])
}
