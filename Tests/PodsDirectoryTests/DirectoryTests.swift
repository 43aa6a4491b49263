import Foundation
import PodsDirectory
import PodsHTTP
import PodsTestSupport
import Testing

@Suite(.timeLimit(.minutes(10))) struct DirectoryTests {
    @Test func iTunesDropsResultsWithoutAFeed() async throws {
        let server = try LoopbackHTTPServer(files: [:])
        defer { server.stop() }
        DirectoryFixtures.install(on: server)
        let results = try await ITunesDirectory(baseURL: server.url("/itunes"), http: HTTPClient()).search("swift podcasts", limit: 10)
        #expect(results.map(\.title) == ["Swift Talk", "Swift by Sundell"])
        #expect(results.first == DirectoryResult(title: "Swift Talk", author: "objc.io", feedURL: "https://talk.example.com/feed.xml",
                                                 artworkURL: "https://img.example.com/600.jpg", episodeCount: 120, source: "itunes"))
    }

    @Test func podcastIndexSignsItsRequests() async throws {
        let server = try LoopbackHTTPServer(files: [:])
        defer { server.stop() }
        DirectoryFixtures.install(on: server)
        let directory = PodcastIndexDirectory(baseURL: server.url("/pi"), key: DirectoryFixtures.podcastIndexKey,
                                              secret: DirectoryFixtures.podcastIndexSecret, http: HTTPClient())
        let results = try await directory.search("swift", limit: 10)
        #expect(results.map(\.title) == ["Swift by Sundell", "Swift Community"])
        #expect(results.first?.artworkURL == "https://img.example.com/sundell.jpg" && results.last?.author == nil)
        let wrong = PodcastIndexDirectory(baseURL: server.url("/pi"), key: "nope", secret: "nope", http: HTTPClient())
        await #expect(throws: DirectoryError("Podcast Index refused the key and secret (401)")) { try await wrong.search("swift", limit: 5) }
        // The documented signature: SHA-1 of key + secret + date, lower-case hex.
        let headers = PodcastIndexDirectory.authHeaders(key: "k", secret: "s", now: Date(timeIntervalSince1970: 1_600_000_000))
        #expect(headers.first { $0.name == "Authorization" }?.value == DirectoryFixtures.sha1("ks1600000000"))
        #expect(headers.first { $0.name == "X-Auth-Date" }?.value == "1600000000")
    }

    @Test func mergedByFeedURLAndRankedAcrossDirectories() {
        func result(_ title: String, _ url: String, _ source: String, author: String? = nil) -> DirectoryResult {
            DirectoryResult(title: title, author: author, feedURL: url, artworkURL: nil, episodeCount: nil, source: source)
        }
        let itunes = [result("A", "https://a.example/feed", "itunes"), result("B", "http://WWW.b.example/rss/", "itunes")]
        let index = [result("B", "https://b.example/rss", "podcastindex", author: "Bee"), result("C", "https://c.example/x", "podcastindex")]
        let merged = DirectorySearch.merge([itunes, index], limit: 10)
        #expect(merged.map(\.title) == ["B", "A", "C"])  // B: 1/2 + 1 beats A: 1
        #expect(merged.first?.author == "Bee" && merged.first?.source == "itunes")
        #expect(DirectorySearch.merge([itunes, index], limit: 1).count == 1)
    }

    @Test func appleLinks() {
        #expect(ITunesDirectory.podcastID(inLink: "https://podcasts.apple.com/us/podcast/swift-talk/id1001?i=5") == "1001")
        #expect(ITunesDirectory.podcastID(inLink: "https://itunes.apple.com/podcast/id42") == "42")
        #expect(ITunesDirectory.podcastID(inLink: "https://example.com/id1001") == nil)
        #expect(ITunesDirectory.podcastID(inLink: "https://podcasts.apple.com/us/podcast/swift-talk") == nil)
    }

    @Test func aDirectoryThatIsNotJSONIsOneError() async throws {
        let server = try LoopbackHTTPServer(files: [:])
        defer { server.stop() }
        server.setHandler("/bad/search") { _ in .init(type: "text/html", body: Data("<html>maintenance</html>".utf8)) }
        await #expect(throws: DirectoryError("the iTunes directory's answer is not the JSON it should be")) {
            try await ITunesDirectory(baseURL: server.url("/bad"), http: HTTPClient()).search("x", limit: 5)
        }
        await #expect(throws: DirectoryError.self) {
            try await ITunesDirectory(baseURL: "http://127.0.0.1:1", http: HTTPClient()).search("x", limit: 5)
        }
    }
}
