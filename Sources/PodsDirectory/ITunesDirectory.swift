import Foundation
import PodsHTTP

/// The iTunes Search API (no key): `GET {base}/search?media=podcast&term=…`
/// and `GET {base}/lookup?id=…`. Results without a `feedUrl` are dropped
/// (as AntennaPod does); the answer may come as `text/javascript`.
public struct ITunesDirectory: Sendable {
    public let baseURL: String
    private let http: HTTPClient

    public init(baseURL: String, http: HTTPClient) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.http = http
    }

    public func search(_ term: String, limit: Int) async throws(DirectoryError) -> [DirectoryResult] {
        let url = "\(baseURL)/search?media=podcast&entity=podcast&limit=\(min(max(limit, 1), 200))&term=\(Self.encoded(term))"
        return try await results(url).compactMap(Self.result)
    }

    /// The feed of the podcast with Apple id `id`; nil when Apple has none.
    public func feedURL(ofPodcast id: String) async throws(DirectoryError) -> String? {
        try await results("\(baseURL)/lookup?entity=podcast&id=\(Self.encoded(id))").lazy.compactMap { $0.feedUrl }.first
    }

    /// The Apple id in a `podcasts.apple.com/…/id123456789` (or `itunes.apple.com`) link.
    public static func podcastID(inLink link: String) -> String? {
        guard let url = URL(string: link), let host = url.host?.lowercased(),
              host == "podcasts.apple.com" || host == "itunes.apple.com" else { return nil }
        for component in url.pathComponents.reversed() where component.hasPrefix("id") {
            let digits = component.dropFirst(2)
            if !digits.isEmpty, digits.allSatisfy(\.isNumber) { return String(digits) }
        }
        return nil
    }

    // MARK: - The answer

    struct Answer: Decodable {
        var results: [Item]
    }

    struct Item: Decodable {
        var collectionName: String?
        var trackName: String?
        var artistName: String?
        var feedUrl: String?
        var artworkUrl600: String?
        var artworkUrl100: String?
        var trackCount: Int?
    }

    private func results(_ url: String) async throws(DirectoryError) -> [Item] {
        try await http.directoryAnswer(Answer.self, from: url, directory: "the iTunes directory").results
    }

    private static func result(_ item: Item) -> DirectoryResult? {
        guard let feed = item.feedUrl, HTTPClient.isHTTP(feed) else { return nil }
        return DirectoryResult(title: item.collectionName ?? item.trackName ?? feed, author: item.artistName, feedURL: feed,
                               artworkURL: item.artworkUrl600 ?? item.artworkUrl100, episodeCount: item.trackCount, source: "itunes")
    }

    static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
