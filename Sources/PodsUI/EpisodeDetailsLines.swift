import Foundation
import PodsClient

/// An episode's page as `pods show` prints it, wrapped to a pane.
extension EpisodeDetails {
    /// The page as lines of at most `width` columns.
    public func lines(width: Int) -> [DetailLine] {
        var lines = DisplayWrap.lines(title, width: width).map { DetailLine($0, .title) }
        lines += DisplayWrap.lines(facts, width: width).map { DetailLine($0, .facts) }
        for paragraph in paragraphs where !paragraph.isEmpty {
            lines.append(DetailLine(""))
            lines += DisplayWrap.lines(paragraph, width: width).map { DetailLine($0) }
        }
        if !chapters.isEmpty {
            lines += [DetailLine(""), DetailLine("Chapters", .heading)]
            for chapter in chapters {
                let text = "\(chapter.index). \(Clock.text(chapter.start))  \(chapter.title)"
                lines += DisplayWrap.lines(text, width: width, indent: 2).map { DetailLine($0, action: .chapter(chapter.index)) }
            }
        }
        if !links.isEmpty {
            lines += [DetailLine(""), DetailLine("Links", .heading)]
            for (index, link) in links.enumerated() {
                let text = "[\(index + 1)] " + (link.text.isEmpty || link.text == link.url ? link.url : "\(link.text) \(link.url)")
                lines += DisplayWrap.lines(text, width: width, indent: 2).map { DetailLine($0, action: .open(link.url)) }
            }
        }
        if !soundbites.isEmpty {
            lines += [DetailLine(""), DetailLine("Soundbites", .heading)]
            for soundbite in soundbites {
                let text = "\(Clock.text(soundbite.start))  \(soundbite.title)"
                lines += DisplayWrap.lines(text, width: width, indent: 2).map { DetailLine($0, action: .playFrom(soundbite.start)) }
            }
        }
        if !people.isEmpty {
            lines += [DetailLine(""), DetailLine("People", .heading)]
            for person in people { lines += DisplayWrap.lines(person, width: width, indent: 2).map { DetailLine($0) } }
        }
        if !showPeople.isEmpty {
            lines += [DetailLine(""), DetailLine("The show's people", .heading)]
            for person in showPeople { lines += DisplayWrap.lines(person, width: width, indent: 2).map { DetailLine($0) } }
        }
        if !funding.isEmpty {
            lines += [DetailLine(""), DetailLine("Support the show", .heading)]
            for link in funding {
                let text = link.text.isEmpty ? link.url : "\(link.text) \(link.url)"
                lines += DisplayWrap.lines(text, width: width, indent: 2).map { DetailLine($0, action: .open(link.url)) }
            }
        }
        if !trailers.isEmpty {
            lines += [DetailLine(""), DetailLine("The show's trailers", .heading)]
            for trailer in trailers {
                lines += DisplayWrap.lines(trailer.title, width: width, indent: 2).map { DetailLine($0, action: .playURL(trailer.url)) }
            }
        }
        if !recommended.isEmpty {
            lines += [DetailLine(""), DetailLine("The show recommends", .heading)]
            for show in recommended {
                let text = show.name + (show.subscribe == nil ? " (subscribed)" : "")
                lines += DisplayWrap.lines(text, width: width, indent: 2).map { DetailLine($0, action: show.subscribe.map(DetailLine.Action.subscribe)) }
            }
        }
        return lines
    }
}
