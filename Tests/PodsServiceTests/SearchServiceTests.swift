import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// `pods search` against loopback stand-ins of iTunes and Podcast Index,
/// and subscribing by an Apple link or a web page that names its feed.
@Suite(.timeLimit(.minutes(10))) struct SearchServiceTests {
    static func start(_ server: LoopbackHTTPServer, key: String? = DirectoryFixtures.podcastIndexKey,
                      secret: String = DirectoryFixtures.podcastIndexSecret, iTunes: String? = nil) async throws -> PodsdProcess {
        let directory = try Fixtures.temporaryDirectory()
        var config = "search-itunes-url = \"\(iTunes ?? server.url("/itunes"))\"\nsearch-podcastindex-url = \"\(server.url("/pi"))\"\n"
        if let key { config += "podcastindex-key = \"\(key)\"\npodcastindex-secret = \"\(secret)\"\n" }
        try Data(config.utf8).write(to: directory.appendingPathComponent("config.toml"))
        return try await PodsdProcess.start(directory: directory)
    }

    static func results(_ result: CommandResult) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result)")
    }

    @Test func bothDirectoriesMergedAndEachAlone() async throws {
        let server = try LoopbackHTTPServer(files: [:])
        defer { server.stop() }
        DirectoryFixtures.install(on: server)
        let podsd = try await Self.start(server)
        let merged = try Self.results(await podsd.pods("search", "swift", "--json"))
        #expect(merged.map { $0["title"] as? String } == ["Swift by Sundell", "Swift Talk", "Swift Community"])
        #expect(Set(merged[0].keys) == ["title", "author", "feedURL", "artworkURL", "episodeCount", "source"])
        #expect(merged[0]["author"] as? String == "John" && merged[0]["artworkURL"] as? String == "https://img.example.com/sundell.jpg")
        #expect(merged.last?["source"] as? String == "podcastindex" && merged.last?["author"] is NSNull)
        #expect(try Self.results(await podsd.pods("search", "swift", "--limit", "1", "--json")).count == 1)
        let text = await podsd.pods("search", "swift", "talk")
        #expect(text.stdout.contains("Swift Talk — objc.io  (itunes, 120 episodes)\n    https://talk.example.com/feed.xml"), "\(text)")
        #expect(try Self.results(await podsd.pods("search", "nothing-like-it", "--json")).isEmpty)
    }

    @Test func withoutAKeyOrWithAWrongOneITunesAlone() async throws {
        let server = try LoopbackHTTPServer(files: [:])
        defer { server.stop() }
        DirectoryFixtures.install(on: server)
        for podsd in [try await Self.start(server, key: nil), try await Self.start(server, secret: "wrong")] {
            let results = try Self.results(await podsd.pods("search", "swift", "--json"))
            #expect(results.map { $0["source"] as? String } == ["itunes", "itunes"])
        }
        // No directory answers: one line.
        let podsd = try await Self.start(server, key: nil, iTunes: "http://127.0.0.1:1")
        let failed = await podsd.run(Fixtures.executable("pods"), ["search", "swift"])
        #expect(failed.status == 1 && failed.stderr.hasPrefix("pods: the iTunes directory cannot be reached")
                && failed.stderr.split(separator: "\n").count == 1, "\(failed)")
        #expect(podsd.isRunning)
    }

    /// A show a podroll names only by its `podcast:guid` (`guid:…`), found
    /// through Podcast Index; one it does not know, or no key, is one line.
    @Test func subscribingByAPodcastGuid() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        DirectoryFixtures.install(on: server)
        server.setFile("/feed.xml", sampleFeed([("t1", "Talk one", 1, server.url("/a.mp3"))], title: "Swift Talk"))
        let podsd = try await Self.start(server)
        let subscribed = await podsd.pods("subscribe", "guid:\(DirectoryFixtures.knownGuid)")
        #expect(subscribed.status == 0 && subscribed.stdout.contains("Swift Talk"), "\(subscribed)")
        let unknown = await podsd.run(Fixtures.executable("pods"), ["subscribe", "guid:00000000-0000-0000-0000-000000000000"])
        #expect(unknown.status == 1 && unknown.stderr.contains("Podcast Index knows no feed with podcast:guid")
                && unknown.stderr.split(separator: "\n").count == 1, "\(unknown)")
        let hostile = await podsd.run(Fixtures.executable("pods"), ["subscribe", "guid:../../etc&x=1"])
        #expect(hostile.status != 0 && hostile.stderr.contains("guid: takes a podcast:guid"), "\(hostile)")
        let keyless = try await Self.start(server, key: nil)
        let noKey = await keyless.run(Fixtures.executable("pods"), ["subscribe", "guid:\(DirectoryFixtures.knownGuid)"])
        #expect(noKey.status == 1 && noKey.stderr.contains("set podcastindex-key and podcastindex-secret"), "\(noKey)")
        #expect(podsd.isRunning && keyless.isRunning)
    }

    @Test func subscribingByAnAppleLinkOrAWebPage() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        DirectoryFixtures.install(on: server)
        server.setFile("/feed.xml", sampleFeed([("t1", "Talk one", 1, server.url("/a.mp3"))], title: "Swift Talk"))
        server.setFile("/other.xml", sampleFeed([("o1", "Other one", 1, server.url("/a.mp3"))], title: "Other Show"))
        server.setFile("/show.html", Data("""
            <!doctype html><html><head><title>Other Show</title>
            <link rel="stylesheet" href="/style.css"><link rel='alternate' type='application/rss+xml' title='RSS' href='/other.xml'>
            </head><body>Listen!</body></html>
            """.utf8), type: "text/html")
        server.setFile("/plain.html", Data("<html><head><title>No feed</title></head><body>hi</body></html>".utf8), type: "text/html")
        let podsd = try await Self.start(server, key: nil)
        let apple = await podsd.pods("subscribe", "https://podcasts.apple.com/us/podcast/swift-talk/id1001")
        #expect(apple.status == 0 && apple.stdout.contains("Subscribed to Swift Talk"), "\(apple)")
        let page = await podsd.pods("subscribe", server.url("/show.html"))
        #expect(page.status == 0 && page.stdout.contains("Subscribed to Other Show"), "\(page)")
        let feeds = try await LibraryClient(podsd.client).podcastsJSON().compactMap { $0["feedURL"] as? String }
        #expect(Set(feeds) == [server.url("/feed.xml"), server.url("/other.xml")])
        for (url, message) in [
            ("https://podcasts.apple.com/us/podcast/no-feed/id1002", "pods: Apple lists no feed for this podcast (id 1002)"),
            (server.url("/plain.html"), "not a podcast feed"),
        ] {
            let result = await podsd.run(Fixtures.executable("pods"), ["subscribe", url])
            #expect(result.status == 1 && result.stderr.contains(message) && result.stderr.split(separator: "\n").count == 1, "\(result)")
        }
        #expect(try await LibraryClient(podsd.client).podcastsJSON().count == 2)
    }
}
