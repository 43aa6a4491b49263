import ArgumentParser
import Foundation
import PodsClient
import PodsDBus
import PodsProtocol

struct BookmarkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookmark",
        abstract: "Mark this moment of the episode playing, with a note (bind it to a key: see docs/bookmarks.md).")

    @Argument(help: "What to remember about it (up to 1,000 characters).") var note: String = ""
    @OptionGroup var format: OutputFormat

    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in
            let id = try await PodsPlayerClient(player).bookmark(note: note)
            if format.json { return StandardOutput.write(Array("{\"id\":\(id)}\n".utf8)) }
            print("Bookmark \(id) kept.")
        }
    }
}

struct BookmarksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookmarks", abstract: "List bookmarks (of one episode, or all), export them, or delete one.")

    @Argument(help: "An episode's id: only its bookmarks.") var episode: Int64?
    @Option(help: ArgumentHelp("Print them as Markdown links (md).", valueName: "md")) var export: String?
    @Option(help: ArgumentHelp("Delete this bookmark.", valueName: "id")) var delete: Int64?
    @OptionGroup var format: OutputFormat

    func validate() throws {
        if let export, export != "md" { throw ValidationError("--export takes md") }
        if delete != nil, episode != nil || export != nil { throw ValidationError("--delete takes no episode and no --export") }
    }

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            if let delete { return try await library.deleteBookmark(delete) }
            var all: [DBusValue] = []
            try await library.bookmarks(episode: episode) { all += $0 }
            if format.json { return ItemOutput.print(all, LibraryItems.bookmark) }
            if all.isEmpty, export == nil { return print("No bookmarks.") }
            for bookmark in all { print(export == nil ? Self.line(bookmark) : Self.markdown(bookmark)) }
        }
    }

    /// `  3  12:34  Episode title: note «cue»`
    static func line(_ bookmark: DBusValue) -> String {
        let clock = Status.clock(bookmark["position"]?.doubleValue ?? 0)
        return "\(Podcasts.padded(bookmark["id"].int, 4))  \(clock)  \(Self.words(bookmark))"
    }

    /// `- [12:34](pods:episode/N?t=754) Episode title: note: «cue»`
    static func markdown(_ bookmark: DBusValue) -> String {
        let seconds = bookmark["position"]?.doubleValue ?? 0
        let whole = Int(max(0, min(seconds, 1e7)).rounded(.down))
        let link = "pods:episode/\(bookmark["episodeId"].int)?t=\(whole)"
        return "- [\(Status.clock(seconds))](\(link)) \(Self.markdownEscaped(Self.words(bookmark, separator: ": ")))"
    }

    /// Text that Markdown reads as text: every character it gives a meaning
    /// (links, emphasis, code, HTML) escaped, so a note `[x](file:///etc/passwd)`
    /// is no live link (ADVERSARIAL-5, 8).
    static func markdownEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "\\`*_[]()<>!|~&".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    private static func words(_ bookmark: DBusValue, separator: String = " ") -> String {
        var text = bookmark["episodeTitle"].text
        let note = bookmark["note"].text
        if !note.isEmpty { text += ": " + note }
        if let cue = bookmark["cue"]?.stringValue, !cue.isEmpty { text += separator + "«\(cue)»" }
        return text
    }
}
