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
        return DirectoryAnswers.results(of: try await results(url))
    }

    /// The feed of the podcast with Apple id `id`; nil when Apple has none.
    public func feedURL(ofPodcast id: String) async throws(DirectoryError) -> String? {
        DirectoryAnswers.results(of: try await results("\(baseURL)/lookup?entity=podcast&id=\(Self.encoded(id))")).first?.feedURL
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

    private func results(_ url: String) async throws(DirectoryError) -> [DirectoryAnswers.ITunes.Item] {
        try await http.directoryAnswer(DirectoryAnswers.ITunes.self, from: url, directory: "the iTunes directory").results
    }

    static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
