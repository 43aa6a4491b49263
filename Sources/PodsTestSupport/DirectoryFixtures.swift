import Foundation
import PodsDigest

/// Loopback stand-ins for the iTunes Search API and Podcast Index that
/// answer as they do (response shapes from their documentation: iTunes as
/// `text/javascript` with results that may lack `feedUrl`; Podcast Index
/// checking its auth headers and refusing with 401 otherwise).
public enum DirectoryFixtures {
    public static let podcastIndexKey = "TESTKEY123"
    public static let podcastIndexSecret = "test$secret^456"

    /// The guid `/pi/podcasts/byguid` knows: its feed is `server`'s `/feed.xml`.
    public static let knownGuid = "917393e3-1b1e-5cef-ace4-edaa54e1f810"

    /// Serves `/itunes/search`, `/itunes/lookup`, `/pi/search/byterm` and
    /// `/pi/podcasts/byguid` on `server`.
    public static func install(on server: LoopbackHTTPServer) {
        server.setHandler("/itunes/search") { request in
            let term = request.query["term"] ?? ""
            guard request.query["media"] == "podcast" else { return .init(status: 400, body: Data("{}".utf8)) }
            let results: [[String: Any]] = term.lowercased().contains("swift") ? [
                ["wrapperType": "track", "kind": "podcast", "collectionId": 1001, "collectionName": "Swift Talk", "artistName": "objc.io",
                 "feedUrl": "https://talk.example.com/feed.xml", "artworkUrl100": "https://img.example.com/100.jpg",
                 "artworkUrl600": "https://img.example.com/600.jpg", "trackCount": 120],
                ["wrapperType": "track", "kind": "podcast", "collectionId": 1002, "collectionName": "No Feed Show", "artistName": "Nobody"],
                ["wrapperType": "track", "kind": "podcast", "collectionId": 1003, "collectionName": "Swift by Sundell",
                 "artistName": "John", "feedUrl": "http://WWW.sundell.example.com/podcast/", "trackCount": 99],
            ] : []
            return .init(type: "text/javascript; charset=utf-8", body: json(["resultCount": results.count, "results": results]))
        }
        server.setHandler("/itunes/lookup") { request in
            let results: [[String: Any]] = switch request.query["id"] {
            case "1001": [["collectionId": 1001, "collectionName": "Swift Talk", "feedUrl": server.url("/feed.xml")]]
            case "1002": [["collectionId": 1002, "collectionName": "No Feed Show"]]
            default: []
            }
            return .init(type: "text/javascript; charset=utf-8", body: json(["resultCount": results.count, "results": results]))
        }
        @Sendable func signed(_ request: LoopbackHTTPServer.Request) -> Bool {
            guard let key = request.headers["x-auth-key"], key == podcastIndexKey, let date = request.headers["x-auth-date"],
                  let seconds = Double(date), abs(seconds - Date().timeIntervalSince1970) < 180,
                  request.headers["authorization"] == sha1(key + podcastIndexSecret + date),
                  request.headers["user-agent"]?.isEmpty == false else { return false }
            return true
        }
        let refused = LoopbackHTTPServer.Response(status: 401, body: json(["status": "false", "description": "Authorization header missing or invalid"]))
        // Its quirk: a guid it does not know answers 200 with `feed` an empty array.
        server.setHandler("/pi/podcasts/byguid") { request in
            guard signed(request) else { return refused }
            let guid = request.query["guid"] ?? ""
            guard guid == knownGuid else {
                return .init(body: json(["status": "true", "query": ["guid": guid], "feed": [Any](), "description": "No feeds match this guid."]))
            }
            return .init(body: json(["status": "true", "query": ["guid": guid], "description": "Found matching feed",
                                     "feed": ["id": 75075, "podcastGuid": guid, "title": "Swift Talk", "url": server.url("/feed.xml")]]))
        }
        server.setHandler("/pi/search/byterm") { request in
            guard signed(request) else { return refused }
            let term = request.query["q"] ?? ""
            let feeds: [[String: Any]] = term.lowercased().contains("swift") ? [
                ["id": 9, "title": "Swift by Sundell", "url": "https://sundell.example.com/podcast", "author": "John Sundell",
                 "image": "https://img.example.com/sundell.jpg", "artwork": "", "episodeCount": 100],
                ["id": 10, "title": "Swift Community", "url": "https://community.example.com/rss", "author": "", "episodeCount": 7],
                ["id": 11, "title": "Broken", "url": ""],
            ] : []
            return .init(body: json(["status": "true", "feeds": feeds, "count": feeds.count, "query": term, "description": "Found matching feeds"]))
        }
    }

    public static func sha1(_ text: String) -> String {
        SHA1.hex(text.utf8)
    }

    private static func json(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
    }
}
