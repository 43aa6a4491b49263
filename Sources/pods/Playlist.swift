import ArgumentParser
import PodsClient
import PodsDBus
import PodsProtocol
import PodsSettings

struct Playlists: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the playlists: what each holds now, and which plays next.")
    @OptionGroup var format: OutputFormat

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let all = try await library.playlists()
            if format.json { return ItemOutput.print(all, LibraryItems.playlist) }
            if all.isEmpty { return print("No playlists. Make one: pods playlist create NAME --unplayed --max-duration 30m") }
            for playlist in all {
                let active = playlist["active"]?.boolValue == true ? "  (playing next)" : ""
                let kind = playlist["kind"].text == "list" ? "list" : "rules"
                print("\(Podcasts.padded(playlist["id"].int, 4))  \(playlist["name"].text)  \(playlist["count"].int) episodes, \(kind)\(active)")
            }
        }
    }
}

struct Playlist: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make, show, edit, play or delete a playlist (of rules, or kept by hand); see docs/playlists.md.",
        subcommands: [Create.self, Show.self, Add.self, Remove.self, PlayList.self, Delete.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a playlist of rules (every episode that passes them, in its order), or with --manual one kept by hand.")
        @Argument(help: "Its name.") var name: String
        @Flag(help: "A list you fill yourself (pods playlist add).") var manual = false
        @Option(help: ArgumentHelp("Only this podcast's episodes (an id or a title's start; again for more).", valueName: "podcast"))
        var podcast: [String] = []
        @Flag(help: "Only unplayed episodes.") var unplayed = false
        @Flag(help: "Only downloaded episodes.") var downloaded = false
        @Option(help: ArgumentHelp("At least this long (10m, 1h).", valueName: "time")) var minDuration: String?
        @Option(help: ArgumentHelp("At most this long.", valueName: "time")) var maxDuration: String?
        @Option(help: ArgumentHelp("Published at most this long ago (7d, 4w).", valueName: "time")) var maxAge: String?
        @Option(help: ArgumentHelp("Titles matching this regular expression (without regard to case).", valueName: "pattern"))
        var title: String?
        @Option(help: "newest, oldest, shortest or longest first.") var order = "newest"
        @OptionGroup var format: OutputFormat

        func validate() throws {
            if manual, !podcast.isEmpty || unplayed || downloaded || minDuration != nil || maxDuration != nil || maxAge != nil || title != nil {
                throw ValidationError("a list kept by hand (--manual) has no rules")
            }
            for (name, text) in [("--min-duration", minDuration), ("--max-duration", maxDuration), ("--max-age", maxAge)] {
                if let text, SettingKey.seconds(fromUnits: text) == nil { throw ValidationError("\(name) takes a time such as 30m or 7d, not '\(text.prefix(40))'") }
            }
            if !["newest", "oldest", "shortest", "longest"].contains(order) { throw ValidationError("--order takes newest, oldest, shortest or longest") }
        }

        func run() async throws {
            try await withLibrary { (library) throws(PlayerClient.Failure) in
                var rules: [String: DBusValue] = manual ? ["manual": .bool(true)] : ["order": .string(order)]
                if !manual {
                    var ids: [DBusValue] = []
                    for text in podcast { ids.append(.int64(try await library.podcast(text)["id"]?.int64Value ?? -1)) }
                    if !ids.isEmpty { rules["podcasts"] = .array(.int64, ids) }
                    if unplayed { rules["unplayed"] = .bool(true) }
                    if downloaded { rules["downloaded"] = .bool(true) }
                    for (key, text) in [("minDuration", minDuration), ("maxDuration", maxDuration), ("maxAge", maxAge)] {
                        if let seconds = text.flatMap(SettingKey.seconds(fromUnits:)) { rules[key] = .double(seconds) }
                    }
                    if let title { rules["title"] = .string(title) }
                }
                let made = try await library.createPlaylist(name, rules: rules)
                if format.json { return ItemOutput.print(made, LibraryItems.playlist) }
                print("Playlist \(made["id"].int), \(made["name"].text): \(made["count"].int) episodes now.")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A playlist's episodes in its order (queue: the queue's).")
        @Argument(help: "Its name or id.") var playlist: String
        @OptionGroup var format: OutputFormat

        func run() async throws {
            var output = ItemOutput.array()
            var position = 0
            try await withLibrary { (library) throws(PlayerClient.Failure) in
                try await library.playlistEpisodes(playlist) { page in
                    if format.json { return output.page(page, LibraryItems.episodeSummary) }
                    for episode in page {
                        position += 1
                        print("\(position). \(episode["id"].int)  \(episode["podcastTitle"].text): \(episode["title"].text)")
                    }
                }
                if format.json { output.finish() } else if position == 0 { print("Nothing in it now.") }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add episodes to a list kept by hand, at the end (or at --at).")
        @Argument(help: "Its name or id.") var playlist: String
        @Argument(help: "Episode ids.") var episodes: [Int64]
        @Option(help: "Position, 1 being first.") var at: Int?

        func run() async throws {
            try await withLibrary { (library) throws(PlayerClient.Failure) in
                try await library.addToPlaylist(playlist, episodes, at: at.map { $0 - 1 })
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take an episode out of a list kept by hand.")
        @Argument(help: "Its name or id.") var playlist: String
        @Argument(help: "The episode's id.") var episode: Int64

        func run() async throws {
            try await withLibrary { (library) throws(PlayerClient.Failure) in try await library.removeFromPlaylist(playlist, episode) }
        }
    }

    struct PlayList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "play", abstract: "Play a playlist (queue: the queue) from its first episode; it plays next from then on.")
        @Argument(help: "Its name or id, or queue.") var playlist: String

        func run() async throws {
            try await withLibrary { (library) throws(PlayerClient.Failure) in try await library.playPlaylist(playlist) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a playlist (its episodes stay in the library).")
        @Argument(help: "Its name or id.") var playlist: String

        func run() async throws {
            try await withLibrary { (library) throws(PlayerClient.Failure) in try await library.deletePlaylist(playlist) }
        }
    }
}
