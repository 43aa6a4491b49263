import ArgumentParser
import Foundation
import PodsClient

struct Download: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download episodes for offline listening (only the bytes not already cached).")

    @Argument(help: "Episode ids.") var episodes: [Int64]
    @Flag(help: "Return once the downloads have started.") var noWait = false
    @Flag(help: "Print the downloads as JSON when done.") var json = false

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            for episode in episodes { try await library.download(episode) }
            if noWait { return }
            var failed: [String] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while true {
                let entries = decodeJSON(try await library.downloads()) as? [[String: Any]] ?? []
                let mine = entries.filter { episodes.contains(Int64($0["episodeId"] as? Int ?? -1)) }
                // An episode whose file changed on the server is briefly not listed while it starts over.
                let listed = Set(mine.compactMap { $0["episodeId"] as? Int }.map(Int64.init))
                if listed.count < Set(episodes).count, ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(250))
                    continue
                }
                let pending = mine.filter { $0["state"] as? String == "downloading" }
                failed = mine.compactMap { $0["state"] as? String == "failed" ? "episode \($0["episodeId"] as? Int ?? 0): \($0["error"] as? String ?? "failed")" : nil }
                if pending.isEmpty {
                    if json {
                        let data = (try? JSONSerialization.data(withJSONObject: mine, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
                        print(String(decoding: data, as: UTF8.self))
                    } else {
                        for entry in mine where entry["state"] as? String == "downloaded" {
                            print("✓ \(entry["title"] as? String ?? ""): \(Downloads.size(entry["size"] as? Int ?? 0))")
                        }
                    }
                    break
                }
                try? await Task.sleep(for: .milliseconds(250))
            }
            if !failed.isEmpty {
                throw PlayerClient.Failure(failed.joined(separator: "; "))
            }
        }
    }
}

struct Downloads: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List downloaded and cached episodes with their size and state.")

    @Flag(help: "Print JSON (see the README for the schema).") var json = false

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let reply = try await library.downloads()
            if json { return print(reply) }
            for entry in decodeJSON(reply) as? [[String: Any]] ?? [] {
                let bytes = entry["bytes"] as? Int ?? 0, size = entry["size"] as? Int ?? 0
                let share = size > 0 ? " \(100 * bytes / size)%" : ""
                print(String(format: "%5d  %-11@ %9@%@  %@", entry["episodeId"] as? Int ?? 0, entry["state"] as? String ?? "",
                             Self.size(size), share, entry["title"] as? String ?? ""))
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
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let bytes = try budget.map { text throws(ValidationError) in
            guard let bytes = Self.parseSize(text) else { throw ValidationError("'\(text)' is not a size such as 500M or 2G") }
            return bytes
        }
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            if let bytes { try await library.setCacheBudget(bytes) }
            let reply = try await library.storage()
            if json { return print(reply) }
            let info = decodeJSON(reply) as? [String: Any] ?? [:]
            print("\(Downloads.size(info["bytes"] as? Int ?? 0)) in \(info["episodes"] as? Int ?? 0) episodes "
                  + "(\(Downloads.size(info["downloadedBytes"] as? Int ?? 0)) downloaded); "
                  + "budget \(Downloads.size(info["budget"] as? Int ?? 0))")
        }
    }

    /// `123`, `500K`, `500M`, `2G` (powers of 1000, like the sizes shown).
    static func parseSize(_ text: String) -> Int64? {
        let units: [Character: Double] = ["K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12]
        var digits = text.uppercased().trimmingCharacters(in: .whitespaces)
        if digits.hasSuffix("B") { digits.removeLast() }
        var factor = 1.0
        if let last = digits.last, let unit = units[last] {
            factor = unit
            digits.removeLast()
        }
        guard let value = Double(digits), value >= 0, value.isFinite, value * factor < 9e18 else { return nil }
        return Int64(value * factor)
    }
}
