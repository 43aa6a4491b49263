import ArgumentParser
import Foundation
import PodsClient
import PodsSettings
import PodsDBus
import PodsProtocol

struct Download: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download episodes for offline listening (only the bytes not already cached).",
        discussion: "A download you ask for is yours: a podcast's keep-downloads and delete-played-after never delete it "
            + "(`pods download` on an auto-downloaded episode makes it yours too).")

    @Argument(help: "Episode ids.") var episodes: [Int64]
    @Flag(help: "Return once the downloads have started.") var noWait = false
    @OptionGroup var format: OutputFormat

    func run() async throws {
        let terminal = isatty(STDERR_FILENO) == 1 && !format.json
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            for episode in episodes { try await library.download(episode) }
            if noWait { return }
            let wanted = Set(episodes)
            let deadline = ContinuousClock.now + .seconds(30)
            var mine: [DBusValue] = []
            while true {
                mine = try await library.downloads().filter { wanted.contains($0["episodeId"]?.int64Value ?? -1) }
                // An episode whose file changed on the server is briefly not listed while it starts over.
                let listed = Set(mine.compactMap { $0["episodeId"]?.int64Value })
                let pending = mine.filter { ["downloading", "queued"].contains($0["state"].text) }
                if listed.count == wanted.count || ContinuousClock.now >= deadline, pending.isEmpty { break }
                if terminal { Self.drawProgress(mine) }
                try? await Task.sleep(for: .milliseconds(250))
            }
            if terminal { FileHandle.standardError.write(Data("\u{1B}[2K\r".utf8)) }
            let failed = mine.filter { $0["state"].text == "failed" }.map {
                "episode \($0["episodeId"].int): \($0["error"]?.text ?? "failed")"
            }
            if format.json {
                ItemOutput.print(mine, LibraryItems.download)
            } else {
                for entry in mine where entry["state"].text == "downloaded" {
                    print("✓ \(entry["title"].text): \(Downloads.size(entry["size"].int))")
                }
                for entry in mine where entry["state"].text == "metered" {
                    print("… \(entry["title"].text): waits for a network that is not metered (metered-downloads)")
                }
            }
            if !failed.isEmpty { throw PlayerClient.Failure(failed.joined(separator: "; ")) }
        }
    }

    /// `[##########..........] 4.1 MB of 8.2 MB` on stderr, redrawn in place.
    private static func drawProgress(_ entries: [DBusValue]) {
        let bytes = entries.reduce(0) { $0 + $1["bytes"].int }
        let size = entries.reduce(0) { $0 + $1["size"].int }
        let line = FeedProgress.bar(bytes, of: size) + " \(Downloads.size(bytes)) of \(Downloads.size(size))"
        FileHandle.standardError.write(Data((line + "\r").utf8))
    }
}

struct Downloads: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List downloaded and cached episodes with their size and state.")

    @OptionGroup var format: OutputFormat

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let entries = try await library.downloads()
            if format.json { return ItemOutput.print(entries, LibraryItems.download) }
            for entry in entries {
                let bytes = entry["bytes"].int, size = entry["size"].int
                let share = size > 0 ? " \(100 * bytes / size)%" : ""
                let mine = entry["byHand"]?.boolValue == true ? "  (kept)" : ""
                let loudness = entry["loudness"]?.doubleValue.map { String(format: "  %.1f LUFS", $0) } ?? ""
                print(String(format: "%5d  %-11@ %9@%@  %@%@%@", entry["episodeId"].int, entry["state"].text,
                             Self.size(size), share, entry["title"].text, mine, loudness))
            }
        }
    }

    /// `1.4 MB`.
    static func size(_ bytes: Int) -> String {
        ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .file)
    }
}

struct DeleteDownload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-download", abstract: "Delete an episode's downloaded or cached audio.")

    @Argument(help: "Episode ids.") var episodes: [Int64]

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            for episode in episodes { try await library.deleteDownload(episode) }
        }
    }
}

struct AutoDownload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auto-download", abstract: "Download a podcast's newest unplayed episodes after each refresh.")

    @Argument(help: "The podcast's id or an unambiguous title prefix.") var podcast: String
    @Argument(help: "How many episodes (0 turns it off).") var count: Int

    func run() async throws {
        guard count >= 0 else { throw ValidationError("count must be 0 or more") }
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            try await library.setAutoDownload(podcast: podcast, count: count)
        }
    }
}

struct Storage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the cache's size, or set its budget (partial caches beyond it are evicted, oldest first).")

    @Option(help: ArgumentHelp("The budget, such as 500M or 2G.", valueName: "size")) var budget: String?
    @OptionGroup var format: OutputFormat

    func run() async throws {
        let bytes = try budget.map { text throws(ValidationError) in
            guard let bytes = SettingKey.bytes(from: text) else { throw ValidationError("'\(text)' is not a size such as 500M or 2G") }
            return bytes
        }
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            if let bytes { try await library.setCacheBudget(bytes) }
            let info = try await library.storage()
            if format.json { return ItemOutput.print(info, LibraryItems.storage) }
            print("\(Downloads.size(info["bytes"].int)) in \(info["episodes"].int) episodes "
                  + "(\(Downloads.size(info["downloadedBytes"].int)) downloaded); budget \(Downloads.size(info["budget"].int))")
        }
    }
}
