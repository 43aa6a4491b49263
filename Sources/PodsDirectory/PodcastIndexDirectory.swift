import Foundation
import PodsHTTP
import PodsDigest

/// The Podcast Index API (`GET {base}/search/byterm?q=…`), signed as it
/// asks: `X-Auth-Key`, `X-Auth-Date` (Unix seconds) and `Authorization`, the
/// lower-case hex SHA-1 of key + secret + date, with a `User-Agent`.
public struct PodcastIndexDirectory: Sendable {
    public let baseURL: String
    private let key: String
    private let secret: String
    private let http: HTTPClient

    public init(baseURL: String, key: String, secret: String, http: HTTPClient) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.key = key
        self.secret = secret
        self.http = http
    }

    /// The headers that sign a request made at `now`.
    public static func authHeaders(key: String, secret: String, now: Date = Date()) -> [(name: String, value: String)] {
        let date = String(Int64(now.timeIntervalSince1970))
        return [("User-Agent", "Pods/0.1"), ("X-Auth-Key", key), ("X-Auth-Date", date),
                ("Authorization", SHA1.hex((key + secret + date).utf8))]
    }

    /// The feed URL Podcast Index knows for a show's `podcast:guid`
    /// (`GET {base}/podcasts/byguid?guid=…`); nil when it knows none.
    public func feedURL(ofGuid guid: String) async throws(DirectoryError) -> String? {
        let url = "\(baseURL)/podcasts/byguid?guid=\(ITunesDirectory.encoded(guid))"
        return try await http.directoryAnswer(DirectoryAnswers.PodcastIndexByGuid.self, from: url, directory: "Podcast Index",
                                              refused: "Podcast Index refused the key and secret",
                                              headers: Self.authHeaders(key: key, secret: secret)).feedURL
    }

    public func search(_ term: String, limit: Int) async throws(DirectoryError) -> [DirectoryResult] {
        let url = "\(baseURL)/search/byterm?max=\(min(max(limit, 1), 1000))&q=\(ITunesDirectory.encoded(term))"
        let answer = try await http.directoryAnswer(DirectoryAnswers.PodcastIndex.self, from: url, directory: "Podcast Index",
                                                    refused: "Podcast Index refused the key and secret",
                                                    headers: Self.authHeaders(key: key, secret: secret))
        return DirectoryAnswers.results(of: answer)
    }
}
