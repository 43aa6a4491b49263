import ArgumentParser
import Foundation
import PodsFeedParser
import PodsHTTP

struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Parse a feed without subscribing (no podsd needed).",
        discussion: "SOURCE is a path, a file:// URL or an http(s):// URL. Prints a summary, or the feed as JSON with --json.")

    @Argument(help: ArgumentHelp("A path, file:// URL or http(s):// URL of a feed.", valueName: "source"))
    var source: String

    @OptionGroup var format: OutputFormat

    @Option(help: ArgumentHelp("Resolve relative links against this URL.", valueName: "url"))
    var baseURL: String?

    func run() async throws {
        let feed: Feed
        do {
            feed = try await parse()
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
        if format.json {
            var writer = JSONWriter(capacity: 256 << 10, sink: StandardOutput.write)
            feed.writeJSON(to: &writer)
            writer.raw("\n")
            writer.flush()
        } else {
            print(Self.summary(feed))
        }
        // Done: a 10,000-episode feed need not be taken apart value by value
        // on the way out (that costs as much as writing it).
        fflush(nil)
        Foundation.exit(0)
    }

    private func parse() async throws -> Feed {
        let lowered = source.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("feed://") || lowered.hasPrefix("itpc://") {
            let url = lowered.hasPrefix("http") ? source : "http://" + source.dropFirst(7)
            let response = try await HTTPClient().get(url)
            let base = URL(string: baseURL ?? response.finalURL)
            return try FeedParser(baseURL: base).parse(response.body)
        }
        var path = source
        if lowered.hasPrefix("file://") {
            guard let url = URL(string: source), url.isFileURL else { throw FeedError(.unreadable, "not a file URL: \(source)") }
            path = url.path
        } else if source.contains("://") {
            throw FeedError(.unreadable, "pods inspect reads paths and file, http and https URLs, not \(source)")
        }
        return try FeedParser(baseURL: baseURL.flatMap(URL.init(string:))).parse(fileAt: path)
    }

    static func summary(_ feed: Feed) -> String {
        var lines = [feed.title]
        if let author = feed.author { lines.append("by \(author)") }
        lines.append("\(feed.episodes.count) episode\(feed.episodes.count == 1 ? "" : "s")")
        // Sort indices, not episodes: an episode is a large value to move.
        let newest = feed.episodes.indices.sorted {
            (feed.episodes[$0].published ?? .distantPast) > (feed.episodes[$1].published ?? .distantPast)
        }.prefix(5).map { feed.episodes[$0] }
        for episode in newest {
            let date = episode.published.map { String(JSONDate.string(unixSeconds: Int64($0.timeIntervalSince1970.rounded(.down))).prefix(10)) }
                ?? "          "
            lines.append("  \(date)  \(episode.title)")
        }
        return lines.joined(separator: "\n")
    }
}
