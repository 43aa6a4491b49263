import Foundation
@testable import PodsFeedParser
import PodsTestSupport
import Testing

/// Text after a well-formedness error comes out exact: libxml2 2.9 drops
/// named references after the first error, so `ReferenceRepair` turns them
/// into character references before it sees them.
@Suite(.timeLimit(.minutes(10))) struct ReferenceRepairTests {
    static func rss(channelTitle: String = "T", _ items: String) -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0"><channel><title>\(channelTitle)</title>
            \(items)
            </channel></rss>
            """.utf8)
    }

    static func item(_ guid: String, title: String, description: String = "d", url: String = "http://e.com/1.mp3") -> String {
        "<item><title>\(title)</title><guid>\(guid)</guid><description>\(description)</description>"
            + "<enclosure url=\"\(url)\" type=\"audio/mpeg\" length=\"10\"/></item>"
    }

    @Test func aStrayAmpersandInTheChannelTitleLeavesLaterTextExact() throws {
        let feed = try FeedParser().parse(Self.rss(channelTitle: "Tom & Jerry Show",
                                                   Self.item("1", title: "Q&amp;A: 1 &lt; 2 &eacute;t&eacute; &#233;")))
        #expect(feed.title == "Tom & Jerry Show")
        #expect(feed.episodes.map(\.title) == ["Q&A: 1 < 2 été é"])
    }

    @Test func anUnknownEntityLeavesLaterTextExactAndStaysAsText() throws {
        let feed = try FeedParser().parse(Self.rss(
            Self.item("1", title: "One", description: "a &bogus; b")
                + Self.item("2", title: "Tips &amp; Tricks &ndash; part 2", description: "caf&eacute;&nbsp;&amp; more&hellip;")))
        #expect(feed.episodes.map(\.title) == ["One", "Tips & Tricks – part 2"])
        #expect(feed.episodes.map(\.description) == ["a &bogus; b", "café & more…"])
    }

    @Test func attributesAfterAFaultKeepTheirReferences() throws {
        let feed = try FeedParser().parse(Self.rss(
            Self.item("1", title: "A & B") + Self.item("2", title: "Two", url: "http://e.com/2.mp3?a=1&amp;b=2&c=3&amp;lt;")))
        #expect(feed.episodes.last?.enclosures.first?.url == "http://e.com/2.mp3?a=1&b=2&c=3&lt;")
    }

    @Test func otherFaultsNeitherLoseNorChangeText() throws {
        let feed = try FeedParser().parse(Self.rss(
            Self.item("1", title: "1 < 2, 3 > 2 &#0; x\u{1}y &#xD800;")
                + "<item><title>Bad</title><guid>2</guid><bogus>unclosed</item>"
                + Self.item("3", title: "R&amp;D &lt;b&gt; &quot;q&quot; &apos;a&apos;")))
        #expect(feed.episodes.first?.title == "1 < 2, 3 > 2 \u{FFFD} xy &#xD800;")
        #expect(feed.episodes.last?.title == "R&D <b> \"q\" 'a'")
    }

    @Test func cdataCommentsAndDeclarationsPassUntouched() throws {
        let document = Data("""
            <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x "y">]><!-- a & b < c -->
            <rss><channel><title><![CDATA[Raw & <b>cdata</b> &amp; kept]]></title>\(Self.item("1", title: "&amp;"))</channel></rss>
            """.utf8)
        let feed = try FeedParser().parse(document)
        #expect(feed.title == "Raw & <b>cdata</b> &amp; kept")
        #expect(feed.episodes.first?.title == "&")
    }

    @Test func anySplitIntoPiecesGivesTheSameBytes() {
        let document = Array("""
            <r a="1&amp;2 &bogus; <" b='&eacute;'>x & y &lt; &#0; <![CDATA[&amp; ]] ]]> 1 < 2 <!-- & --> <?pi & ?> \u{1}z</r>
            """.utf8)
        var whole = ReferenceRepair()
        let expected = whole.process(document) + whole.finish()
        #expect(String(decoding: expected, as: UTF8.self) == """
            <r a="1&#38;2 &#38;bogus; &#60;" b='&#233;'>x &#38; y &#60; &#65533; <![CDATA[&amp; ]] ]]> 1 &#60; 2 <!-- & --> <?pi & ?> z</r>
            """)
        for split in 1..<document.count {
            var pieces = ReferenceRepair()
            let out = pieces.process(Array(document[..<split])) + pieces.process(Array(document[split...])) + pieces.finish()
            #expect(out == expected, "split at \(split)")
        }
    }

    /// Faults dropped at random into a feed's descriptions: every title
    /// (before and after each fault) and the description text before and
    /// after the fault come out exact.
    @Test func textAroundRandomFaultsSurvives() throws {
        // Faults in characters and references, and the text each leaves (a
        // stray end tag is another matter: libxml2 may close the item at it).
        let faults: [(fault: String, reads: String)] = [
            ("&", "&"), ("& ", "&"), ("&bogus;", "&bogus;"), ("&#0;", "\u{FFFD}"), ("< ", "<"), ("\u{1}", ""), ("&amp", "&amp"),
            ("&#xD800;", "&#xD800;"), ("<", "<"), ("&&;", "&&;"), ("]]>", "]]>"), ("&#;", "&#;"), ("&lt", "&lt"), ("\u{B}", ""),
        ]
        var random = SplitMix64(state: 0xFA17)
        for round in 0..<200 {
            let count = 3 + random.below(6)
            var faulted: [Int: String] = [:]  // what each faulted item's description reads
            var items = ""
            for index in 0..<count {
                var description = "before &amp; &eacute; after"
                if random.below(3) == 0 {
                    let (fault, reads) = faults[random.below(faults.count)]
                    faulted[index] = "before & é \(reads)\(reads.isEmpty ? "" : " ")after"
                    description = "before &amp; &eacute; \(fault) after"
                }
                items += Self.item("g\(index)", title: "Q&amp;A \(index): 1 &lt; 2 &eacute;t&eacute; &quot;x&quot;", description: description)
            }
            let feed = try FeedParser().parse(Self.rss(channelTitle: random.below(2) == 0 ? "A & B" : "A &amp; B", items))
            #expect(feed.title == "A & B", "round \(round)")
            #expect(feed.episodes.map(\.title) == (0..<count).map { "Q&A \($0): 1 < 2 été \"x\"" }, "round \(round)")
            #expect(feed.episodes.map(\.description) == (0..<count).map { faulted[$0] ?? "before & é after" }, "round \(round)")
        }
    }
}

@Suite(.timeLimit(.minutes(10))) struct OPMLReferenceTests {
    @Test func outlineTitlesAfterAFaultKeepTheirReferences() throws {
        let document = Data("""
            <?xml version="1.0"?><opml version="2.0"><head><title>Mine & yours</title></head><body>
            <outline text="Caf&eacute; &amp; Co" type="rss" xmlUrl="https://e.com/a?x=1&amp;y=2"/>
            <outline text="Tom & Jerry" type="rss" xmlUrl="https://e.com/b"/>
            </body></opml>
            """.utf8)
        let outlines = try OPML.parse(document)
        #expect(outlines == [OPML.Outline(title: "Café & Co", feedURL: "https://e.com/a?x=1&y=2"),
                             OPML.Outline(title: "Tom & Jerry", feedURL: "https://e.com/b")])
    }
}

@Suite(.timeLimit(.minutes(10))) struct OPMLExportTests {
    @Test func controlCharactersInTitlesNeverMakeTheExportUnreadable() throws {
        let outlines = [OPML.Outline(title: "A\u{1}B\u{B} & <C>\tD", feedURL: "https://e.com/a?x=1&y=2")]
        let parsed = try OPML.parse(Data(OPML.document(outlines).utf8))
        #expect(parsed == [OPML.Outline(title: "AB & <C> D", feedURL: "https://e.com/a?x=1&y=2")])  // a tab in an attribute reads as a space
    }
}
