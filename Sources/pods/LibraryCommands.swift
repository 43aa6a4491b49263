import ArgumentParser
import Foundation
import PodsClient

/// Runs `body` with podsd's library interface; a failure is one line on
/// stderr and exit status 1.
func withLibrary(_ body: (LibraryClient) async throws(PlayerClient.Failure) -> Void) async throws {
    try await withPlayer { (player) throws(PlayerClient.Failure) in try await body(LibraryClient(player)) }
}

/// JSON text from podsd as a value to print from.
func decodeJSON(_ text: String) -> Any? {
    try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}

struct Subscribe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Subscribe to a podcast feed.")

    @Argument(help: "The feed's URL (http, https, feed:// or itpc://).") var url: String
    @Flag(help: "Print the podcast as JSON.") var json = false

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let reply = try await library.subscribe(url)
            if json { return print(reply) }
            let podcast = decodeJSON(reply) as? [String: Any] ?? [:]
            print("Subscribed to \(podcast["title"] as? String ?? url) (id \(podcast["id"] as? Int ?? 0), "
                  + "\(podcast["episodeCount"] as? Int ?? 0) episodes)")
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

    @Flag(help: "Print JSON (see the README for the schema).") var json = false

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let reply = try await library.podcasts()
            if json { return print(reply) }
            for podcast in decodeJSON(reply) as? [[String: Any]] ?? [] {
                let error = (podcast["lastError"] as? String).map { "  [error: \($0)]" } ?? ""
                print(String(format: "%4d  %@  (%d unplayed of %d)%@", podcast["id"] as? Int ?? 0, podcast["title"] as? String ?? "",
                             podcast["unplayedCount"] as? Int ?? 0, podcast["episodeCount"] as? Int ?? 0, error))
            }
        }
    }
}

struct Episodes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List episodes, newest first.")

    @Argument(help: "A podcast's id or title prefix; all podcasts when left out.") var podcast: String?
    @Flag(help: "Only episodes not played to the end.") var unplayed = false
    @Option(help: "At most this many.") var limit: Int?
    @Flag(help: "Print JSON (see the README for the schema).") var json = false

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let reply = try await library.episodes(podcast: podcast, unplayedOnly: unplayed, limit: limit)
            if json { return print(reply) }
            for episode in decodeJSON(reply) as? [[String: Any]] ?? [] {
                let date = (episode["published"] as? String).map { String($0.prefix(10)) } ?? "          "
                var mark = " "
                if episode["currentlyPlaying"] as? Bool == true { mark = ">" }
                else if episode["completed"] as? Bool == true { mark = "✓" }
                else if (episode["position"] as? Double ?? 0) > 0 { mark = "…" }
                print(String(format: "%6d %@ %@  %@", episode["id"] as? Int ?? 0, mark, date, episode["title"] as? String ?? ""))
            }
        }
    }
}

struct Refresh: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Fetch new episodes.")

    @Argument(help: "A podcast's id or title prefix; all podcasts when left out.") var podcast: String?
    @Flag(help: "Print one JSON result per podcast.") var json = false

    func run() async throws {
        let terminal = isatty(STDERR_FILENO) == 1 && !json
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let bar = terminal ? Task { await Self.drawProgress(await library.refreshProgress()) } : nil
            defer { bar?.cancel() }
            let reply = try await library.refresh(podcast: podcast)
            bar?.cancel()
            await bar?.value
            if terminal { FileHandle.standardError.write(Data("\u{1B}[2K\r".utf8)) }
            if json { return print(reply) }
            for result in decodeJSON(reply) as? [[String: Any]] ?? [] {
                let title = result["title"] as? String ?? ""
                if let error = result["error"] as? String {
                    print("✗ \(title): \(error)")
                } else if result["notModified"] as? Bool == true {
                    print("= \(title): not modified")
                } else {
                    print("✓ \(title): \(result["added"] as? Int ?? 0) new, \(result["updated"] as? Int ?? 0) updated, "
                          + "\(result["removed"] as? Int ?? 0) removed")
                }
            }
        }
    }
}

extension Refresh {
    /// `[#########...........]  9/20 feeds` on stderr, redrawn in place.
    static func drawProgress(_ progress: AsyncStream<(done: Int, total: Int)>) async {
        FileHandle.standardError.write(Data("Refreshing…\r".utf8))
        for await (done, total) in progress where total > 0 {
            let width = 30
            let filled = width * done / total
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            FileHandle.standardError.write(Data("[\(bar)] \(done)/\(total) feeds\r".utf8))
        }
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
    @Flag(help: "Print one JSON result per feed.") var json = false

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            FileHandle.standardError.write(Data("pods: cannot read \(file)\n".utf8))
            throw ExitCode.failure
        }
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let reply = try await library.importOPML(String(decoding: data, as: UTF8.self))
            if json { return print(reply) }
            for result in decodeJSON(reply) as? [[String: Any]] ?? [] {
                print(result["error"] as? String ?? "✓ \(result["url"] as? String ?? "")")
            }
        }
    }
}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write the subscriptions as OPML 2.0.")

    @Argument(help: "Where to write; standard output when left out.") var file: String?

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let opml = try await library.exportOPML()
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
