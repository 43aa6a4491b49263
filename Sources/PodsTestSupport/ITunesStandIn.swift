import Foundation

/// iTunes' podcast search as a loopback server answers it for a test: one
/// show for `term`, none for anything else, in iTunes' own JSON.
public enum ITunesStandIn {
    public static func serve(on server: LoopbackHTTPServer, term: String, show: String, artist: String, feedURL: String) {
        server.setHandler("/itunes/search") { request in
            let results: [[String: Any]] = request.query["term"] == term ? [[
                "wrapperType": "track", "kind": "podcast", "collectionId": 7, "collectionName": show,
                "artistName": artist, "feedUrl": feedURL, "trackCount": 1,
            ]] : []
            let body = try? JSONSerialization.data(withJSONObject: ["resultCount": results.count, "results": results])
            return .init(type: "text/javascript; charset=utf-8", body: body ?? Data())
        }
    }

    /// A data folder whose config.toml points podsd's directory search at `server`.
    public static func dataDirectory(searching server: LoopbackHTTPServer) throws -> URL {
        let directory = try Fixtures.temporaryDirectory()
        try Data("search-itunes-url = \"\(server.url("/itunes"))\"\n".utf8).write(to: directory.appendingPathComponent("config.toml"))
        return directory
    }
}
