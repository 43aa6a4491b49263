import Foundation
import PodsHTTP

/// The directories' JSON answers and the results read from them: the part
/// of a search that reads outside bytes (fuzzed by `Tests/Fuzz/directory.swift`).
/// A result's feed must be http(s) (it is dropped otherwise, as AntennaPod
/// drops results without a feed); artwork that is not http(s) is left out.
enum DirectoryAnswers {
    /// The iTunes Search API's answer (`search` and `lookup`).
    struct ITunes: Decodable {
        var results: [Item]

        struct Item: Decodable {
            var collectionName: String?
            var trackName: String?
            var artistName: String?
            var feedUrl: String?
            var artworkUrl600: String?
            var artworkUrl100: String?
            var trackCount: Int?
        }
    }

    /// Podcast Index's answer to `search/byterm`.
    struct PodcastIndex: Decodable {
        var feeds: [Feed]

        struct Feed: Decodable {
            var title: String?
            var author: String?
            var url: String?
            var image: String?
            var artwork: String?
            var episodeCount: Int?
        }
    }

    /// Podcast Index's `podcasts/byguid` answer: `feed` is the feed found,
    /// or (its quirk) an empty array when none has the guid.
    struct PodcastIndexByGuid: Decodable {
        var feed: PodcastIndex.Feed?

        private enum CodingKeys: String, CodingKey { case feed }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            feed = try? container.decodeIfPresent(PodcastIndex.Feed.self, forKey: .feed)
        }

        /// The feed's web address, if one was found.
        var feedURL: String? { feed?.url.flatMap { HTTPClient.isHTTP($0) ? $0 : nil } }
    }

    /// `body` as `T`; one line naming `directory` when it is not.
    static func decode<T: Decodable>(_ type: T.Type, _ body: Data, directory: String) throws(DirectoryError) -> T {
        guard let answer = try? JSONDecoder().decode(T.self, from: body) else {
            throw DirectoryError("\(directory)'s answer is not the JSON it should be")
        }
        return answer
    }

    static func results(of items: [ITunes.Item]) -> [DirectoryResult] {
        items.compactMap { item in
            guard let feed = item.feedUrl, HTTPClient.isHTTP(feed) else { return nil }
            return DirectoryResult(title: item.collectionName ?? item.trackName ?? feed, author: item.artistName, feedURL: feed,
                                   artworkURL: web(item.artworkUrl600) ?? web(item.artworkUrl100), episodeCount: item.trackCount,
                                   source: "itunes")
        }
    }

    static func results(of answer: PodcastIndex) -> [DirectoryResult] {
        answer.feeds.compactMap { feed in
            guard let url = feed.url, HTTPClient.isHTTP(url) else { return nil }
            return DirectoryResult(title: feed.title ?? url, author: feed.author.flatMap { $0.isEmpty ? nil : $0 }, feedURL: url,
                                   artworkURL: web(feed.artwork) ?? web(feed.image), episodeCount: feed.episodeCount,
                                   source: "podcastindex")
        }
    }

    private static func web(_ url: String?) -> String? { url.flatMap { HTTPClient.isHTTP($0) ? $0 : nil } }
}
