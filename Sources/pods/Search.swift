import ArgumentParser
import PodsClient
import PodsProtocol

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find podcasts in the iTunes directory (and Podcast Index, with a key and secret in the config).")

    @Argument(parsing: .remaining, help: "What to look for.") var words: [String] = []
    @Option(help: "At most this many results (1 to 200).") var limit = 20
    @OptionGroup var format: OutputFormat

    func validate() throws {
        guard !words.joined().isEmpty else { throw ValidationError("give something to search for") }
        guard (1...200).contains(limit) else { throw ValidationError("--limit is 1 to 200") }
    }

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let results = try await library.search(words.joined(separator: " "), limit: limit)
            if format.json { return ItemOutput.print(results, LibraryItems.directoryResult) }
            if results.isEmpty { return print("Nothing found.") }
            for result in results {
                let author = result["author"]?.stringValue.map { " — \($0)" } ?? ""
                let count = result["episodeCount"]?.int64Value.map { ", \($0) episodes" } ?? ""
                print("\(result["title"].text)\(author)  (\(result["source"].text)\(count))\n    \(result["feedURL"].text)")
            }
        }
    }
}
