import Foundation
import PodsFeedParser
import Testing

/// Broken and hostile documents: a clear error or every item before the
/// damage, quickly, in bounded memory, never a crash.
@Suite(.timeLimit(.minutes(10))) struct HostileFeedTests {
    static func rss(_ items: String, head: String = "") -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8"?>\(head)
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>T</title>
            \(items)
            </channel></rss>
            """.utf8)
    }

    static func item(_ n: Int, _ extra: String = "") -> String {
        "<item><title>Episode \(n)</title><guid>g\(n)</guid><enclosure url=\"http://e.com/\(n).mp3\" type=\"audio/mpeg\" length=\"10\"/>\(extra)</item>"
    }

    @Test func billionLaughsEndsQuickly() throws {
        var entities = "<!ENTITY lol \"lol\">"
        for level in 1...9 {
            entities += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level == 1 ? "" : String(level - 1));", count: 10) + "\">"
        }
        let document = Data("<?xml version=\"1.0\"?><!DOCTYPE rss [\(entities)]><rss><channel><title>&lol9;</title>\(Self.item(1))</channel></rss>".utf8)
        let start = ContinuousClock.now
        let feed = try FeedParser().parse(document)
        #expect(ContinuousClock.now - start < .seconds(1))
        #expect(feed.title.count < 1000)  // never expanded
        #expect(feed.episodes.count == 1)
    }

    @Test func externalEntitiesNeverReadFiles() throws {
        let document = Data("""
            <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
            <rss><channel><title>x&secret;y</title></channel></rss>
            """.utf8)
        let feed = try FeedParser().parse(document)
        #expect(!feed.title.contains("root:"))
    }

    @Test func htmlNamedEntitiesDecode() throws {
        let feed = try FeedParser().parse(Self.rss(Self.item(1, "<description>caf&eacute;&nbsp;&amp; more&hellip;</description>")))
        #expect(feed.episodes.first?.description == "café & more…")  // plain text: NBSP squashed like any space
    }

    @Test func truncatedDocumentKeepsEarlierItems() throws {
        let whole = Self.rss((1...5).map { Self.item($0) }.joined())
        let cut = whole.prefix(whole.count - 120)
        let feed = try FeedParser().parse(Data(cut))
        #expect(feed.episodes.count >= 4)
    }

    @Test func undefinedEntityKeepsTheFeed() throws {
        let feed = try FeedParser().parse(Self.rss(Self.item(1, "<description>a &bogus; b</description>") + Self.item(2)))
        #expect(feed.episodes.count == 2)
    }

    @Test func invalidUTF8IsReadAsWindows1252() throws {
        var bytes = [UInt8](Self.rss(Self.item(1, "<description>caf\u{E9}</description>")))
        // Replace the UTF-8 é (C3 A9) with a lone windows-1252 é (E9) and add a curly quote (93).
        if let index = bytes.indices.first(where: { bytes[$0] == 0xC3 && bytes[$0 + 1] == 0xA9 }) {
            bytes.replaceSubrange(index...index + 1, with: [0xE9, 0x93])
        }
        let feed = try FeedParser().parse(Data(bytes))
        #expect(feed.episodes.first?.description == "café“")
    }

    @Test func byteOrderMarkAndDeclaredEncoding() throws {
        let latin1 = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel><title>Caf".utf8) + Data([0xE9])
            + Data("</title></channel></rss>".utf8)
        #expect(try FeedParser().parse(latin1).title == "Café")
        let bom = Data([0xEF, 0xBB, 0xBF]) + Self.rss(Self.item(1))
        #expect(try FeedParser().parse(bom).episodes.count == 1)
    }

    @Test func deepNestingIsAnError() {
        let deep = String(repeating: "<a>", count: 10_000)
        #expect(throws: FeedError.self) { try FeedParser().parse(Data("<rss><channel>\(deep)".utf8)) }
    }

    @Test func sizeLimitIsAnError() {
        let big = Self.rss((1...2000).map { Self.item($0) }.joined())
        #expect { try FeedParser(sizeLimit: 10_000).parse(big) } throws: { ($0 as? FeedError)?.code == .tooLarge }
    }

    @Test(arguments: ["<html><head><title>Blog</title></head><body>hi</body></html>",
                      "<?xml version=\"1.0\"?><x:root xmlns:x=\"urn:other\"/>", "", "just text", "{\"json\": true}"])
    func notAFeedIsAClearError(_ document: String) {
        #expect { try FeedParser().parse(Data(document.utf8)) } throws: { error in
            guard let error = error as? FeedError else { return false }
            return error.code == .notAFeed || error.code == .malformed
        }
    }

    @Test func itemsWithoutIdentityAreDroppedOthersFallBack() throws {
        let feed = try FeedParser().parse(Self.rss("""
            <item><title>No guid</title><link>http://e.com/page</link></item>
            <item><title>Only enclosure</title><enclosure url="http://e.com/a.mp3"/></item>
            <item><title>Nothing</title></item>
            """))
        #expect(feed.episodes.map(\.guid) == ["http://e.com/page", "http://e.com/a.mp3"])
    }

    @Test func relativeLinksAndPodcastSchemesResolve() throws {
        let parser = FeedParser(baseURL: URL(string: "https://example.com/shows/feed.xml"))
        let feed = try parser.parse(Self.rss("""
            <item><guid>1</guid><enclosure url="media/1.mp3"/><link>/ep/1</link></item>
            """, head: "").replacing(Data("<title>T</title>".utf8), with: Data("<title>T</title><itunes:new-feed-url>itpc://new.example.com/feed</itunes:new-feed-url>".utf8)))
        #expect(feed.episodes.first?.enclosures.first?.url == "https://example.com/shows/media/1.mp3")
        #expect(feed.episodes.first?.link == "https://example.com/ep/1")
        #expect(feed.newFeedURL == "http://new.example.com/feed")
    }

    /// A feed from the web names no local file: not as its new address,
    /// an episode's audio, image, chapters or transcript, nor through an
    /// `xml:base` of its own. A feed the listener opened from their disk may.
    @Test func aRemoteFeedNamesNoLocalFile() throws {
        let items = """
            <itunes:new-feed-url>file:///home/u/feed.xml</itunes:new-feed-url><itunes:image href="file:///home/u/.face"/>
            <item xmlns:podcast="https://podcastindex.org/namespace/1.0"><guid>1</guid><title>One</title>
              <enclosure url="file:///home/u/.ssh/id_ed25519" type="audio/mpeg"/><itunes:image href="FILE:///etc/passwd"/>
              <podcast:chapters url="file:///etc/shadow" type="application/json+chapters"/>
              <podcast:transcript url="file:///home/u/.ssh/id_rsa" type="text/plain"/></item>
            <item xml:base="file:///home/u/"><guid>2</guid><title>Two</title><enclosure url="notes.mp3" type="audio/mpeg"/><link>x</link></item>
            """
        let remote = try FeedParser(baseURL: URL(string: "https://example.com/feed.xml")).parse(Self.rss(items))
        #expect(remote.newFeedURL == nil && remote.artworkURL == nil)
        #expect(remote.episodes.count == 2)
        for episode in remote.episodes {
            let addresses = episode.enclosures.map(\.url) + [episode.artworkURL, episode.chaptersURL, episode.transcriptURL, episode.link].compactMap { $0 }
            #expect(addresses.allSatisfy(URLPolicy.isHTTP), "\(episode)")
        }
        #expect(remote.episodes.first?.enclosures.isEmpty == true && remote.episodes.first?.transcriptURL == nil)
        #expect(remote.episodes.last?.enclosures.first?.url == "https://example.com/notes.mp3")  // the xml:base was left out
        let local = try FeedParser(baseURL: URL(string: "file:///home/u/feed.xml")).parse(Self.rss(items))
        #expect(local.newFeedURL == "file:///home/u/feed.xml")
        #expect(local.episodes.first?.transcriptURL == "file:///home/u/.ssh/id_rsa")
        #expect(local.episodes.last?.enclosures.first?.url == "file:///home/u/notes.mp3")
        #expect(HTMLDocument.feedLinks(#"<link rel="alternate" type="application/rss+xml" href="file:///etc/passwd">"#
                                       + #"<link rel="alternate" type="application/rss+xml" href="/feed">"#,
                                       base: "https://example.com/") == ["https://example.com/feed"])
    }
}
