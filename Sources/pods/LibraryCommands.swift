import ArgumentParser
import Foundation
import PodsClient
import PodsDBus
import PodsFeedParser
import PodsProtocol

/// Runs `body` with podsd's library interface; a failure is one line on
/// stderr and exit status 1.
func withLibrary(_ body: (LibraryClient) async throws(PlayerClient.Failure) -> Void) async throws {
    try await withPlayer { (player) throws(PlayerClient.Failure) in try await body(LibraryClient(player)) }
}

struct Subscribe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Subscribe to a podcast feed.")

    @Argument(help: "The feed's URL (http, https, feed:// or itpc://), an Apple podcast link, or a web page that names its feed.")
    var url: String
    @Option(help: "A private feed's user name (the password is read from standard input).") var user: String?
    @Flag(help: "Read the private feed's password from standard input (with --user).") var passwordStdin = false
    @OptionGroup var format: OutputFormat

    func validate() throws {
        if passwordStdin != (user != nil) { throw ValidationError("--user and --password-stdin go together") }
    }

    func run() async throws {
        let password = passwordStdin ? (readLine(strippingNewline: true) ?? "") : nil
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let podcast = if let user, let password {
                try await library.subscribe(url, user: user, password: password)
            } else {
                try await library.subscribe(url)
            }
            if format.json { return ItemOutput.print(podcast, LibraryItems.podcast) }
            print("Subscribed to \(podcast["title"]?.text ?? podcast["feedURL"].text) (id \(podcast["id"].int), \(podcast["episodeCount"].int) episodes)")
            // A feed repeating another's podcast:guid is a podcast of its own: a copy, or the show's new
            // home. Only the show's own feed can say it moved; the listener judges the rest.
            guard let guid = podcast["guid"]?.stringValue else { return }
            var alike: [DBusValue] = []
            try await library.podcasts { page in
                alike += page.filter { $0["guid"]?.stringValue == guid && $0["id"].int != podcast["id"].int }
            }
            for other in alike.prefix(3) {
                print("""
                    This looks like a show you follow: \(other["title"].text) (id \(other["id"].int), \(other["feedURL"].text)). \
                    Both are kept: a podcast:guid proves nothing; only the show's own old feed can say it moved. \
                    `pods unsubscribe \(other["id"].int)` if you no longer want the old one.
                    """)
            }
        }
    }
}

struct Unsubscribe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove a podcast and its episodes.")

    @Argument(help: "The podcast's id or an unambiguous title prefix.") var podcast: String

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in try await library.unsubscribe(podcast) }
    }
}

struct Podcasts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List subscriptions, newest first.")

    @OptionGroup var format: OutputFormat

    func run() async throws {
        var output = ItemOutput.array()
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            try await library.podcasts { (page) throws(PlayerClient.Failure) in
                if format.json { return output.page(page, LibraryItems.podcast) }
                for podcast in page {
                    let error = podcast["lastError"].map { "  [error: \($0.text)]" } ?? ""
                    // A feed that is no podcast says what it is (podcast:medium: music, video, a list of shows).
                    let medium = podcast["medium"]?.stringValue.flatMap { $0 == "podcast" ? nil : " [\(ChannelDetails.mediumName($0))]" } ?? ""
                    print("\(Self.padded(podcast["id"].int, 4))  \(podcast["title"].text)\(medium)  "
                          + "(\(podcast["unplayedCount"].int) unplayed of \(podcast["episodeCount"].int))\(error)")
                }
            }
            if format.json { output.finish() }
        }
    }

    static func padded(_ number: Int, _ width: Int) -> String {
        let text = String(number)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}

struct Episodes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List episodes, newest first (a serial podcast's own list oldest first).")

    @Argument(help: "A podcast's id or title prefix; all podcasts when left out.") var podcast: String?
    @Flag(help: "Only episodes not played to the end.") var unplayed = false
    @Flag(help: "Oldest first.") var oldest = false
    @Flag(help: "Newest first, a serial podcast's too.") var newest = false
    @Option(help: "At most this many.") var limit: Int?
    @OptionGroup var format: OutputFormat

    func validate() throws {
        if oldest, newest { throw ValidationError("give --oldest or --newest, not both") }
    }

    func run() async throws {
        var output = ItemOutput.array()
        let order = oldest ? "oldest" : newest ? "newest" : nil
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            if format.json {
                // Pages as they came over the bus, written as JSON where they lie (50,000 episodes in a second).
                try await library.episodePages(podcast: podcast, unplayedOnly: unplayed, order: order, limit: limit) { (page) throws(PlayerClient.Failure) in
                    try output.page(page, LibraryItems.episodeSummary)
                }
                return output.finish()
            }
            try await library.episodes(podcast: podcast, unplayedOnly: unplayed, order: order, limit: limit) { (page) throws(PlayerClient.Failure) in
                var lines = ""
                for episode in page { lines += Self.line(episode) + "\n" }
                print(lines, terminator: "")
            }
        }
    }

    /// `    42 ✓ 2024-05-01  Title` (`>` playing, `…` started, `✓` played).
    static func line(_ episode: DBusValue) -> String {
        let date = episode["published"]?.int64Value.map { String(JSONDate.string(unixSeconds: $0).prefix(10)) } ?? "          "
        var mark = " "
        if episode["currentlyPlaying"]?.boolValue == true { mark = ">" }
        else if episode["completed"]?.boolValue == true { mark = "✓" }
        else if (episode["position"]?.doubleValue ?? 0) > 0 { mark = "…" }
        return "\(Podcasts.padded(episode["id"].int, 6)) \(mark) \(date)  \(episode["title"].text)"
    }
}

struct ShowEpisode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "episode", abstract: "One episode's library item (every field; `pods show` is the page to read).")

    @Argument(help: "The episode's id.") var episode: Int64
    @OptionGroup var format: OutputFormat

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let item = try await library.episode(episode)
            if format.json { return ItemOutput.print(item, LibraryItems.episode) }
            print(Show.page(item, chapters: [], transcript: nil))
        }
    }
}

struct Refresh: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Fetch new episodes.")

    @Argument(help: "A podcast's id or title prefix; all podcasts when left out.") var podcast: String?
    @OptionGroup var format: OutputFormat

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let results = try await FeedProgress.showing(library, unless: format.json, unit: "feeds") { () throws(PlayerClient.Failure) in
                try await library.refresh(podcast: podcast)
            }
            if format.json { return ItemOutput.print(results, LibraryItems.refreshResult) }
            for result in results {
                let title = result["title"].text
                if let error = result["error"] {
                    print("✗ \(title): \(error.text)")
                } else if result["notModified"]?.boolValue == true {
                    print("= \(title): not modified")
                } else {
                    print("✓ \(title): \(result["added"].int) new, \(result["updated"].int) updated, \(result["removed"].int) removed")
                }
            }
        }
    }
}

/// `[#########...........]  9/20 feeds` on stderr while a refresh or an
/// import runs, redrawn in place; only on a terminal.
enum FeedProgress {
    static func showing<T>(_ library: LibraryClient, unless quiet: Bool, unit: String,
                           _ work: () async throws(PlayerClient.Failure) -> T) async throws(PlayerClient.Failure) -> T {
        guard isatty(STDERR_FILENO) == 1, !quiet else { return try await work() }
        let progress = await library.refreshProgress()
        let bar = Task { await draw(progress, unit: unit) }
        defer {
            bar.cancel()
            FileHandle.standardError.write(Data("\u{1B}[2K\r".utf8))
        }
        return try await work()
    }

    static func draw(_ progress: AsyncStream<(done: Int, total: Int)>, unit: String) async {
        FileHandle.standardError.write(Data("Working…\r".utf8))
        for await (done, total) in progress where total > 0 {
            FileHandle.standardError.write(Data((bar(done, of: total) + " \(done)/\(total) \(unit)\r").utf8))
        }
    }

    static func bar(_ done: Int, of total: Int, width: Int = 30) -> String {
        let filled = total > 0 ? min(width, width * done / total) : 0
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
    }
}

struct Mark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mark an episode played or unplayed.")

    enum State: String, ExpressibleByArgument, CaseIterable { case played, unplayed }

    @Argument(help: "played or unplayed.") var state: State
    @Argument(help: "The episode's id.") var episode: Int64

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            try await library.mark(episode: episode, played: state == .played)
        }
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Subscribe to every feed in an OPML file.")

    @Argument(help: "An OPML file (gPodder's, AntennaPod's, …).") var file: String
    @OptionGroup var format: OutputFormat

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            printError("cannot read \(file)")
            throw ExitCode.failure
        }
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let results = try await FeedProgress.showing(library, unless: format.json, unit: "feeds") { () throws(PlayerClient.Failure) in
                try await library.importOPML(String(decoding: data, as: UTF8.self))
            }
            if format.json { return ItemOutput.print(results, LibraryItems.importResult) }
            for result in results {
                print(result["error"]?.text ?? "✓ \(result["url"].text)")
            }
        }
    }
}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write the subscriptions as OPML 2.0.")

    @Argument(help: "Where to write; standard output when left out.") var file: String?

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let opml = try await library.opmlDocument()
            if let file {
                guard FileManager.default.createFile(atPath: file, contents: Data(opml.utf8)) else {
                    throw PlayerClient.Failure("cannot write \(file)")
                }
            } else {
                print(opml, terminator: "")
            }
        }
    }
}
