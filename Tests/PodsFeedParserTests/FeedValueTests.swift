import Foundation
@testable import PodsFeedParser
import PodsTestSupport
import Testing

@Suite(.timeLimit(.minutes(10))) struct FeedValueTests {
    @Test(arguments: [
        ("Wed, 01 May 2024 08:00:00 GMT", "2024-05-01T08:00:00Z"),
        ("Wed, 01 May 2024 08:00:00 +0000", "2024-05-01T08:00:00Z"),
        ("01 May 2024 10:00:00 +0200", "2024-05-01T08:00:00Z"),
        ("Mon, 01 May 2024 08:00:00 GMT", "2024-05-01T08:00:00Z"),  // wrong weekday
        ("Wed, 1 May 2024 08:00 GMT", "2024-05-01T08:00:00Z"),       // no seconds
        ("Wed, 01 May 24 08:00:00 GMT", "2024-05-01T08:00:00Z"),     // two-digit year
        ("Wed, 01 May 2024 04:00:00 EDT", "2024-05-01T08:00:00Z"),
        ("Wed, 01 May 2024 08:00:00 GTM", "2024-05-01T08:00:00Z"),
        ("Wed, 01 May 2024 01:00:00 PDT", "2024-05-01T08:00:00Z"),
        ("Wednesday, 01 May 2024 08:00:00 GMT", "2024-05-01T08:00:00Z"),
        ("Wed, 01 May 2024 08:00:00", "2024-05-01T08:00:00Z"),       // no zone
        ("Wed, 32 May 2024 08:00:00 GMT", "2024-06-01T08:00:00Z"),   // day rolls over
        ("2024-05-01T08:00:00Z", "2024-05-01T08:00:00Z"),
        ("2024-05-01T10:00:00+02:00", "2024-05-01T08:00:00Z"),
        ("2024-05-01T08:00:00.123Z", "2024-05-01T08:00:00Z"),
        ("2024-05-01", "2024-05-01T00:00:00Z"),
        // An offset of a day or more is no zone: read as none, not as years away.
        ("Wed, 01 May 2024 08:00:00 +999999999", "2024-05-01T08:00:00Z"),
        ("Wed, 01 May 2024 08:00:00 -2400", "2024-05-01T08:00:00Z"),
        ("Wed, 01 May 2024 22:00:00 +1400", "2024-05-01T08:00:00Z"),   // the farthest zone there is
        ("2024-05-01T08:00:00+99:99", "2024-05-01T08:00:00Z"),
        ("2024-05-01T00:00:00-23:59", "2024-05-01T23:59:00Z"),
    ])
    func dates(_ text: String, _ expected: String) throws {
        let date = try #require(FeedDates.parse(text))
        #expect(FeedDates.iso8601(date) == expected)
    }

    @Test(arguments: ["", "soon", "Wed, 99 Foo 2024", "2024-13-40", "yesterday at noon"])
    func unparseableDatesAreNil(_ text: String) {
        #expect(FeedDates.parse(text) == nil)
    }

    @Test func durations() {
        #expect(FeedValues.duration("90") == 90)
        #expect(FeedValues.duration("1:30") == 90)
        #expect(FeedValues.duration("1:02:03") == 3723)
        #expect(FeedValues.duration("12.5") == 12.5)
        #expect(FeedValues.duration("00:01:02.5") == 62.5)
        #expect(FeedValues.duration("") == nil)
        #expect(FeedValues.duration("1:2:3:4") == nil)
        #expect(FeedValues.duration("-5") == nil)
        #expect(FeedValues.duration("abc") == nil)
    }

    @Test func utf8RepairKeepsCharactersSplitAcrossChunksAndRepairsBadBytes() {
        let text = Array("<?xml version=\"1.0\"?><t>café – ok</t>".utf8)
        for split in 0...text.count {
            var repair = UTF8Repair()
            let out = repair.process(text[..<split]) + repair.process(text[split...]) + repair.finish()
            #expect(out == text, "split at \(split)")
        }
        var repair = UTF8Repair()
        let bad: [UInt8] = Array("<t>caf".utf8) + [0xE9, 0x20, 0xC3] + Array("</t>".utf8)  // lone é, then a cut-off sequence
        let out = repair.process(bad) + repair.finish()
        #expect(String(decoding: out, as: UTF8.self) == "<t>café Ã</t>")
    }

    @Test func htmlToText() {
        #expect(HTMLText.plainText("<p>Hello&nbsp;<b>world</b></p><p>Two &amp; three</p>") == "Hello world Two & three")
        #expect(HTMLText.plainText("voilà  <br/>café&eacute;&#233;&#xE9;") == "voilà café\u{E9}\u{E9}\u{E9}")  // à ends in 0xA0
        #expect(HTMLText.plainText("  one two\u{A0}\u{A0}three\n\tfour  ") == "one two three four")
        #expect(HTMLText.plainText("&lt;b&gt;kept&lt;/b&gt; &bogus; &#xZZ; & ;") == "<b>kept</b> &bogus; &#xZZ; & ;")
        #expect(HTMLText.plainText("a<b>c</b>d<blockquote>e</BLOCKQUOTE>f<div\nclass=x>g") == "acd e f g")
        #expect(HTMLText.plainText(String(repeating: "1 < 2 ", count: 50_000)).utf8.count == 299_999)  // no '>': stays linear
        #expect(HTMLText.looksLikeHTML("<p>x</p>"))
        #expect(!HTMLText.looksLikeHTML("1 < 2 and 3 > 2"))
    }

    /// A plain description is stored only when it is not the HTML's own text;
    /// telling reads the HTML only as far as the plain text goes.
    @Test func plainTextComparedWithTheHTMLsOwn() {
        let notes = "<p>Hello&nbsp;<b>world</b></p><p>Two &amp; three</p>"
        #expect(FeedText.isPlainText("Hello world Two & three", of: notes))
        #expect(!FeedText.isPlainText("Hello world Two & thre", of: notes))  // a prefix
        #expect(!FeedText.isPlainText("Hello world", of: notes))  // ends where a space follows
        #expect(!FeedText.isPlainText("Hello world Two & three four", of: notes))
        #expect(!FeedText.isPlainText("Episode 3, in short", of: notes))
        #expect(FeedText.isPlainText("", of: "<p> </p>"))
        #expect(!FeedText.isPlainText("", of: "<p>x</p>"))
        #expect(HTMLText.plainText(notes, atMost: 8) == "Hello wo")
        // Long show notes beside a short summary: only the start is read.
        let long = "<p>" + String(repeating: "words and more words ", count: 200_000) + "</p>"
        let clock = ContinuousClock()
        let whole = clock.measure { _ = HTMLText.plainText(long) }
        let told = clock.measure { #expect(!FeedText.isPlainText("A short summary", of: long)) }
        #expect(told * 20 < whole, "telling took \(told), reading it all \(whole)")
    }

    @Test func jsonContractHasEveryKey() throws {
        var feed = Feed()
        feed.title = "T"
        var episode = Episode()
        episode.guid = "g"
        episode.title = "E"
        episode.enclosures = [Enclosure(url: "http://e.com/a.mp3", type: nil, length: nil)]
        feed.episodes = [episode]
        var json = JSONWriter()
        feed.writeJSON(to: &json)
        let object = try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any] ?? [:]
        #expect(Set(object.keys) == ["title", "link", "description", "descriptionHTML", "author", "artworkURL", "language",
                                     "type", "explicit", "newFeedURL", "fundingURL", "locked", "categories", "details", "episodes"])
        let first = (object["episodes"] as? [[String: Any]])?.first ?? [:]
        #expect(Set(first.keys) == ["guid", "title", "link", "description", "descriptionHTML", "published", "duration",
                                    "enclosures", "artworkURL", "season", "number", "episodeType", "explicit", "author",
                                    "chapters", "chaptersURL", "transcriptURL", "persons", "seasonName", "soundbites"])
    }

    @Test func jsonWriterEscapesWhatRFC8259AsksAndKeepsTheRest() throws {
        var episode = Episode()
        episode.guid = "g\u{0}\u{1F}"
        episode.title = "quote \" backslash \\ newline \n tab \t slash / é 🎧"
        episode.duration = 90.07
        episode.number = 3
        episode.chapters = [Chapter(start: 300, title: "Main", url: nil, image: nil)]
        episode.published = Date(timeIntervalSince1970: 1_714_550_400)
        var json = JSONWriter()
        episode.writeJSON(to: &json)
        let text = String(decoding: json.bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"guid":"g\u0000\u001f","title":"quote \" backslash \\ newline \n tab \t slash / é 🎧","link":null"#))
        #expect(text.contains(#""published":"2024-05-01T08:00:00Z","duration":90.07,"#))
        #expect(text.contains(#""chapters":[{"start":300,"title":"Main","url":null,"image":null}]"#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any])
        #expect(object["title"] as? String == episode.title && object["guid"] as? String == episode.guid)
    }

    @Test func everyRealFeedWritesValidJSONThatReadsBackTheSame() throws {
        let folder = Fixtures.sharedTestData.appendingPathComponent("feeds")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        #expect(!files.isEmpty)
        for file in files {
            guard let feed = try? FeedParser().parse(fileAt: file.path) else { continue }
            var json = JSONWriter()
            feed.writeJSON(to: &json)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any], "\(file.lastPathComponent)")
            let episodes = object["episodes"] as? [[String: Any]] ?? []
            #expect(episodes.count == feed.episodes.count, "\(file.lastPathComponent)")
            #expect(episodes.map { $0["title"] as? String } == feed.episodes.map(\.title), "\(file.lastPathComponent)")
            #expect(episodes.map { $0["description"] as? String } == feed.episodes.map(\.description), "\(file.lastPathComponent)")
        }
    }
}

/// Seconds from outside that no episode has: dropped where they are parsed,
/// never an `Int` or a `Duration` (a 1e23 itunes:duration trapped podsd).
@Suite(.timeLimit(.minutes(10))) struct AbsurdSecondsTests {
    static let absurd = ["99999999999999999999999", "1e23", "1e308", "inf", "-inf", "NaN", "nan", "-1", "-0.5",
                         "9223372036854775808", "18446744073709551616", "10000001", "2777:46:41", "1:2:3:4", "1e-400x"]

    @Test(arguments: absurd)
    func aDurationOrAChapterStartNoEpisodeHasIsDropped(_ value: String) throws {
        #expect(FeedValues.duration(value) == nil || FeedValues.duration(value)! <= MediaSeconds.maximum, "\(value)")
        let feed = try FeedParser(baseURL: URL(string: "https://e.com/f.xml")).parse(Data("""
            <rss xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:psc="http://podlove.org/simple-chapters"><channel>
            <title>T</title><item><title>I</title><guid>g</guid><itunes:duration>\(value)</itunes:duration>
            <psc:chapters><psc:chapter start="\(value)" title="x"/><psc:chapter start="1" title="y"/></psc:chapters></item></channel></rss>
            """.utf8))
        let episode = try #require(feed.episodes.first)
        #expect(episode.duration.map { $0.isFinite && $0 >= 0 && $0 <= MediaSeconds.maximum } ?? true, "\(value)")
        #expect(episode.chapters.allSatisfy { $0.start.isFinite && $0.start >= 0 && $0.start <= MediaSeconds.maximum })
        #expect(episode.chapters.contains { $0.title == "y" })
    }

    @Test func timesAreCheckedBeforeTheyBecomeInts() {
        for value in [1e23, 1e308, Double.infinity, -Double.infinity, Double.nan, -1, Double(Int64.max) + 1] {
            #expect(MediaSeconds.checked(value) == nil && MediaSeconds.whole(value) == nil, "\(value)")
        }
        #expect(MediaSeconds.whole(59.6) == 60 && MediaSeconds.whole(59.6, rounding: .down) == 59)
        #expect(MediaSeconds.checked(MediaSeconds.maximum) == MediaSeconds.maximum)
    }
}
