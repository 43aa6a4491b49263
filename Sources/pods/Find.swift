import ArgumentParser
import PodsClient
import PodsProtocol

struct Find: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Search everything in the library: titles, show notes, chapter titles and transcript lines.")

    @Argument(help: "The words to find (all of them; the last may be the start of a word).") var text: [String]
    @Option(help: "How many moments to show, 1 to 200.") var limit = 20
    @OptionGroup var format: OutputFormat

    func validate() throws {
        guard (1...200).contains(limit) else { throw ValidationError("--limit is 1 to 200") }
    }

    func run() async throws {
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            let hits = try await library.find(text.joined(separator: " "), limit: limit)
            if format.json { return ItemOutput.print(hits, LibraryItems.searchHit) }
            if hits.isEmpty { return print("Nothing found.") }
            for hit in hits {
                // The moment as `pods play ID --at TIME` takes it.
                let at = hit["at"]?.doubleValue.map { "  at " + Status.clock($0) } ?? ""
                print("\(Podcasts.padded(Int(hit["episodeId"]?.int64Value ?? 0), 5))  \(hit["episodeTitle"].text) — \(hit["podcastTitle"].text)"
                      + "  (\(hit["kind"].text))\(at)")
                print("       " + hit["snippet"].text.split(whereSeparator: \.isNewline).joined(separator: " "))
            }
        }
    }
}
