import Foundation
@testable import PodsFeedParser
import PodsTestSupport
import Testing

/// The library keeps each item's fingerprint and leaves an unchanged item
/// unparsed at the next refresh (`ItemSkipper`). That is right only while
/// the parser makes the same of it: when what it makes changes (a field
/// added, a value now checked, a URL now refused), `ItemSkipper.version`
/// must move, or libraries keep what the older parser made (REVIEW-3's M2:
/// URLPolicy changed the output and the version stayed 1). This test holds
/// the output of a fixed set of documents to the version: output that
/// changes without the version moving fails it.
@Suite(.timeLimit(.minutes(10))) struct ParserOutputVersionTests {
    /// `ItemSkipper.version` → the digest of the parser's output for the
    /// documents below. A new version records its digest here.
    static let recorded: [UInt64: UInt64] = [
        2: 0x11A9_6B50_00F3_44C6,
        3: 0xFFA5_965B_553D_D426,
        4: 0x4E3A_65CF_B242_4409,
    ]

    @Test func theOutputChangesOnlyWithTheVersion() throws {
        var digest: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a over each document's name and output
        func add(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                digest ^= UInt64(byte)
                digest = digest &* 0x0000_0100_0000_01B3
            }
        }
        let documents = try Self.documents()
        #expect(documents.count > 60)
        for (name, data) in documents {
            add(name.utf8)
            for base in [URL(string: "https://example.com/feed.xml"), URL(string: "file:///home/u/feed.xml")] {
                switch Result(catching: { () throws(FeedError) in try FeedParser(baseURL: base).parse(data) }) {
                case .success(let feed): add(JSONWriter.text { json in feed.writeJSON(to: &json) }.utf8)
                case .failure(let error): add("error \(error.code)".utf8)
                }
            }
        }
        let version = ItemSkipper.version
        let hex = "0x" + String(digest, radix: 16, uppercase: true)
        #expect(Self.recorded[version] == digest, """
            The parser's output is \(hex), not what version \(version) recorded \
            (\(Self.recorded[version].map { "0x" + String($0, radix: 16, uppercase: true) } ?? "none")). If the output \
            changed on purpose, bump ItemSkipper.version and record \(hex) for it here.
            """)
    }

    /// Every real feed and peer-suite document, the sample podcast, and one
    /// feed made here with a value of every kind the parser checks.
    static func documents() throws -> [(String, Data)] {
        var documents: [(String, Data)] = []
        for folder in ["feeds", "podcastparser/data"] {
            let root = Fixtures.sharedTestData.appendingPathComponent(folder)
            let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                guard ["xml", "rss", "atom"].contains(url.pathExtension), let data = FileManager.default.contents(atPath: url.path) else { continue }
                documents.append((folder + "/" + url.lastPathComponent, data))
            }
        }
        documents.append(("sample-podcast.xml", try Data(contentsOf: Fixtures.data("sample-podcast.xml"))))
        documents.append(("checked values", Data("""
            <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
              xmlns:podcast="https://podcastindex.org/namespace/1.0" xmlns:psc="http://podlove.org/simple-chapters"><channel>
            <title>Checked İİ \u{212A}</title><itunes:image href="file:///etc/passwd"/>
            <item><title>One</title><guid>1</guid><itunes:duration>99999999999999999999999</itunes:duration>
              <enclosure url="https://e.com/1.mp3" type="audio/mpeg" length="18446744073709551616"/>
              <podcast:transcript url="file:///etc/shadow" type="text/plain"/><podcast:chapters url="https://e.com/c.json" type="application/json"/>
              <psc:chapters><psc:chapter start="1e23" title="far"/><psc:chapter start="00:01:02.5" title="near"/></psc:chapters>
              <itunes:season>3.0</itunes:season><itunes:episode>-1</itunes:episode>
              <description><![CDATA[<p>İİİ <a href="https://e.com/x">x</a> <a href="file:///x">f</a></p>]]></description></item>
            <item><title>Two</title><guid>2</guid><itunes:duration>1:02:03</itunes:duration><enclosure url="file:///x.mp3"/>
              <pubDate>Wed, 01 May 2024 08:00:00 +999999999</pubDate></item>
            </channel></rss>
            """.utf8)))
        return documents.sorted { $0.0 < $1.0 }
    }
}
