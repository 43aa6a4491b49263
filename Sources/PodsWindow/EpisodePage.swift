import Foundation
import PodsClient
import PodsGtk

/// An episode's page: its artwork, title and facts; what can be done with
/// it (play, add to Up Next, download, mark played, bookmark); its show
/// notes as text with their links (http, https and mailto only, opened by
/// the desktop, never a picture fetched from them); its chapters (pressed
/// to jump, skipped ones said so), soundbites and people; and its audio
/// files with the one that plays marked.
@MainActor
final class EpisodePage {
    /// What the listener asked for on the page.
    enum Command {
        case play, playFrom(Double), chapter(index: Int, start: Double), enqueue, download, mark(played: Bool), bookmark, open(String)
        case transcript
    }

    /// A title's characters shown at most in the page's heading.
    static let maximumTitleCharacters = 1_000
    /// Chapters, soundbites and people shown at most (each is a control).
    static let maximumRows = 500

    let root = Box(vertical: true)
    private(set) var details: EpisodeDetails?
    private let heading = Label()
    private let artwork = Picture(size: 160)
    private let content = Box(vertical: true, spacing: 12)
    private let bookmark = Button(icon: "bookmark-new-symbolic", name: "Bookmark this moment")
    private let command: @MainActor (Int64, Command) -> Void

    init(back: @escaping @MainActor () -> Void, command: @escaping @MainActor (Int64, Command) -> Void) {
        self.command = command
        root.append(PageTop.make(back: back, backName: "Back to the podcast", heading: heading))
        content.margins(top: 4, bottom: 16, start: 16, end: 16)
        root.append(Scrolled(content))
        root.expand(horizontally: true, vertically: true)
        bookmark.onClick { [unowned self] in self.send(.bookmark) }
    }

    /// Shows `details`; `loaded`: whether the player has this episode (a bookmark marks its moment).
    func show(_ details: EpisodeDetails, loaded: Bool) {
        self.details = details
        heading.text = details.podcastTitle
        content.removeAll()
        artwork.clear()
        content.append(header(details))
        content.append(actions(details, loaded: loaded))
        notes(details)
        if details.hasTranscript {
            let read = Button("Read the transcript")
            read.align(horizontal: .start)
            read.onClick { [unowned self] in self.send(.transcript) }
            content.append(read)
        }
        links("Links", details.links.map { ($0.text, $0.url) })
        if !details.chapters.isEmpty {
            section("Chapters", details.chapters.prefix(Self.maximumRows).map { chapter in
                let words = "\(chapter.index). \(Clock.text(chapter.start))  \(chapter.title)"
                let button = Button(words, name: "Chapter \(chapter.index), \(chapter.title), at \(Clock.text(chapter.start))")
                button.onClick { [unowned self] in self.send(.chapter(index: chapter.index, start: chapter.start)) }
                return button
            })
        }
        if !details.soundbites.isEmpty {
            section("Soundbites", details.soundbites.prefix(Self.maximumRows).map { soundbite in
                let title = soundbite.title.isEmpty ? "A moment" : soundbite.title
                let button = Button("\(Clock.text(soundbite.start))  \(title)", name: "Play the soundbite \(title), at \(Clock.text(soundbite.start))")
                button.onClick { [unowned self] in self.send(.playFrom(soundbite.start)) }
                return button
            })
        }
        texts("People", details.people)
        texts("The show’s people", details.showPeople)
        links("Support the show", details.funding.map { ($0.text, $0.url) })
        texts("Audio files", details.audioFiles.map(Self.describe))
    }

    /// Whether the player has this episode now (the bookmark button follows it).
    func player(hasLoaded: Bool) { bookmark.isSensitive = hasLoaded }

    /// The artwork podsd rendered for it.
    func show(artwork png: [UInt8], of episode: Int64) {
        guard let details, details.episodeID == episode else { return }
        artwork.show(png: png, alternative: "Artwork of \(details.title)")
    }

    private func send(_ what: Command) {
        guard let id = details?.episodeID else { return }
        command(id, what)
    }

    private func header(_ details: EpisodeDetails) -> Widget {
        let row = Box(vertical: false, spacing: 16)
        row.append(artwork)
        let text = Box(vertical: true, spacing: 4)
        text.align(vertical: .center)
        text.expand(horizontally: true)
        let title = Label(String(details.title.prefix(Self.maximumTitleCharacters)))
        title.style("title-2")
        title.wrap(selectable: true)
        let facts = Label(details.facts)
        facts.style("dim-label")
        facts.wrap()
        text.append(title)
        text.append(facts)
        row.append(text)
        return row
    }

    private func actions(_ details: EpisodeDetails, loaded: Bool) -> Widget {
        let row = Box(vertical: false, spacing: 6)
        let resume = !details.completed && details.position > 0
        let play = Button(resume ? "Resume from \(Clock.text(details.position))" : "Play")
        play.style("suggested-action")
        play.style("pill")
        play.onClick { [unowned self] in self.send(.play) }
        row.append(play)
        let buttons: [(String, String, Command)] = [
            ("list-add-symbolic", "Add to Up Next", .enqueue),
            ("folder-download-symbolic", "Download", .download),
            details.completed ? ("edit-undo-symbolic", "Mark as unplayed", .mark(played: false))
                : ("object-select-symbolic", "Mark as played", .mark(played: true)),
        ]
        for (icon, name, what) in buttons {
            let button = Button(icon: icon, name: name)
            button.onClick { [unowned self] in self.send(what) }
            row.append(button)
        }
        bookmark.isSensitive = loaded
        row.append(bookmark)
        return row
    }

    /// The notes' paragraphs, a blank line between them (the view keeps at most 100,000 characters).
    private func notes(_ details: EpisodeDetails) {
        let paragraphs = details.paragraphs.filter { !$0.isEmpty }
        guard !paragraphs.isEmpty else { return }
        let view = TextView(name: "Show notes")
        view.text = paragraphs.flatMap(Self.lines).joined(separator: "\n\n")
        content.append(view)
    }

    /// A paragraph is laid out whole: one of 100,000 characters (a note of
    /// unclosed tags) never showed in GTK 4.8's text view. Longer ones are
    /// broken at a space before `maximumLineCharacters`.
    static let maximumLineCharacters = 2_000

    static func lines(_ paragraph: String) -> [String] {
        var lines: [String] = []
        var rest = Substring(paragraph)
        while rest.count > maximumLineCharacters {
            let limit = rest.index(rest.startIndex, offsetBy: maximumLineCharacters)
            let end = rest[..<limit].lastIndex(of: " ") ?? limit
            lines.append(String(rest[..<end]))
            rest = rest[end...].drop { $0 == " " }
        }
        if !rest.isEmpty { lines.append(String(rest)) }
        return lines
    }

    private func links(_ title: String, _ links: [(text: String, url: String)]) {
        let openable = links.filter { EpisodeDetails.isOpenable($0.url) }
        guard !openable.isEmpty else { return }
        section(title, openable.prefix(Self.maximumRows).map { link in
            let button = LinkButton(link.text.isEmpty ? link.url : link.text, address: link.url)
            button.onActivate { [unowned self] in self.send(.open(link.url)) }
            return button
        })
    }

    private func texts(_ title: String, _ lines: [String]) {
        guard !lines.isEmpty else { return }
        section(title, lines.prefix(Self.maximumRows).map { line in
            let label = Label(line)
            label.wrap(selectable: true)
            return label
        })
    }

    private func section(_ title: String, _ rows: [Widget]) {
        let heading = Label(title)
        heading.style("heading")
        heading.margins(top: 8, bottom: 0, start: 0, end: 0)
        content.append(heading)
        let column = Box(vertical: true, spacing: 2)
        for row in rows {
            (row as? Button)?.style("flat")
            (row as? Button)?.ellipsize()
            column.append(row)
        }
        content.append(column)
    }

    /// "MP3 · 12.3 MB · Opus version · plays".
    static func describe(_ file: EpisodeDetails.AudioFile) -> String {
        var parts = [String]()
        parts.append(file.type.map(formatName) ?? "audio")
        if let bytes = file.bytes { parts.append(ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)) }
        if let title = file.title, !title.isEmpty { parts.append(title) }
        parts.append(URL(string: file.url)?.host ?? file.url)
        if file.plays { parts.append("the one that plays") }
        return parts.joined(separator: " · ")
    }

    private static func formatName(_ type: String) -> String {
        switch type.lowercased() {
        case "audio/mpeg", "audio/mp3": "MP3"
        case "audio/mp4", "audio/x-m4a", "audio/aac": "AAC"
        case "audio/ogg", "audio/vorbis": "Ogg"
        case "audio/opus": "Opus"
        case "audio/flac", "audio/x-flac": "FLAC"
        default: type
        }
    }
}
