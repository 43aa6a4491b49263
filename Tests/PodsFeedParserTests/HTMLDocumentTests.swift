import Foundation
@testable import PodsFeedParser
import PodsTestSupport
import Testing

/// Show notes with text whose case mapping changes its length, and other
/// text a note may carry: links are found, whole and from the right place,
/// and nothing traps (REVIEW-3, N4: 40 × U+0130 before a link killed `pods show`).
@Suite(.timeLimit(.minutes(10))) struct HTMLDocumentTests {
    /// Each grows, shrinks or otherwise bends a case-folded or normalised copy.
    static let awkward = [
        "\u{130}",  // İ: lowercases to i + U+0307, two bytes to three
        "\u{212A}",  // Kelvin sign: lowercases to k, three bytes to one
        "\u{1E9E}",  // ẞ: lowercases to ß
        "\u{FB01}",  // ﬁ: uppercases to FI
        "ΣΑΣ ς",  // final sigma
        "e\u{301}\u{302}\u{303}",  // combining marks
        "\u{202E}שלום עולם\u{202C} مرحبا",  // right-to-left text and a bidi override
        "👩‍👩‍👧‍👦🏳️‍🌈🇹🇷",  // emoji sequences
        "\u{0}",  // NUL
        "&#xD800;&#xDFFF;&#55296;",  // character references to surrogates
        "Ａ<Ａ",  // fullwidth letters
    ]

    @Test(arguments: awkward)
    func linksAfterAwkwardTextAreWholeAndRight(_ text: String) {
        for count in [1, 40, 400] {
            let before = String(repeating: text, count: count)
            let html = "<p>\(before) <A HREF=\"https://example.com/one\">One \(text)</a> \(before)"
                + "<a href='https://example.com/two?x=\(count)'>Two</A>\(before)</p>"
            let links = HTMLDocument.links(html)
            #expect(links.map(\.url) == ["https://example.com/one", "https://example.com/two?x=\(count)"], "\(text.debugDescription) × \(count)")
            #expect(links.first?.text.hasPrefix("One") == true)
            #expect(links.last?.text == "Two")
            _ = HTMLDocument.paragraphs(html)
            _ = HTMLDocument.feedLinks(html, base: "https://example.com/")
        }
    }

    /// Reproduced: the note that killed `pods show` and `pods ui`.
    @Test func fortyDottedCapitalIsBeforeALink() {
        let html = String(repeating: "İ", count: 40) + "<a href=\"https://example.com/x\">x</a>"
        #expect(HTMLDocument.links(html) == [HTMLDocument.Link(text: "x", url: "https://example.com/x")])
    }

    /// Characters that shrink when lowercased cut the wrong link before.
    @Test func kelvinSignsBeforeALinkCutNothing() {
        let html = String(repeating: "\u{212A}", count: 30) + "<a href=\"https://example.com/kelvin\">Kelvin</a>"
        #expect(HTMLDocument.links(html) == [HTMLDocument.Link(text: "Kelvin", url: "https://example.com/kelvin")])
    }

    @Test func tagsAreMatchedInASCIICaseOnly() {
        #expect(HTMLDocument.find("<a", in: Array("x<A y".utf8), from: 0, to: 5) == 1)
        #expect(HTMLDocument.find("<a", in: Array("\u{1C}a".utf8), from: 0, to: 2) == nil)  // 0x1C | 0x20 is "<"
        #expect(HTMLDocument.find("href", in: Array("hre".utf8), from: 0, to: 3) == nil)
        #expect(HTMLDocument.find("href", in: Array("HREF".utf8), from: 1, to: 4) == nil)
        #expect(HTMLDocument.links("<a") == [] && HTMLDocument.links("<a ") == [] && HTMLDocument.links("<a href=") == [])
        #expect(HTMLDocument.links("<a href=\"https://e.com\">") == [HTMLDocument.Link(text: "", url: "https://e.com")])
    }
}

@Suite(.timeLimit(.minutes(10))) struct MailLinkTests {
    /// Some mail clients have honoured `?attach=`: a mail link keeps its address only.
    @Test func aMailLinkLosesItsQuery() {
        let links = HTMLDocument.links(#"<a href="mailto:host@example.com?attach=/home/u/.ssh/id_rsa&body=x">mail</a>"#)
        #expect(links.map(\.url) == ["mailto:host@example.com"])
    }

    /// The worst notes a feed can send each reader: unclosed and nested tags,
    /// unterminated comments and references. Each costs in proportion to its
    /// size (REVIEW-4, N4: 48 KB of unclosed `<a ` held `pods show` 15.6 s;
    /// doubling the notes quadrupled it).
    static let worstNotes = [
        "<a ", "<a href=", "<a href=\"https://e.com/", "<a <a <a ", "<a href=x>x", "<a\thref='https://e.com/'>",
        "<", "<p", "<!--", "&#", "&#x1", "&amp", "<link rel=alternate ", "<p><a href=https://e.com/a>a</a>",
    ]

    @Test(arguments: worstNotes)
    func eachReaderIsLinearInTheWorstNotes(_ piece: String) {
        // About 200 KB and 400 KB of the piece, then one closing `>` at the end.
        let make = { (bytes: Int) in String(repeating: piece, count: bytes / piece.utf8.count) + ">" }
        let readers: [(String, (String) -> Void)] = [
            ("links", { _ = HTMLDocument.links($0) }),
            ("paragraphs", { _ = HTMLDocument.paragraphs($0) }),
            ("feedLinks", { _ = HTMLDocument.feedLinks($0, base: "https://example.com/") }),
            ("plainText", { _ = HTMLText.plainText($0) }),
        ]
        for (name, read) in readers {
            let (ratio, seconds) = LinearTime.doublingRatio(size: 200_000, runs: 3, attempts: 4, make: make, read)
            // Linear is 2×, quadratic 4×: 2.6 leaves room for a busy machine's noise.
            #expect(ratio < 2.6 || seconds < 0.02, "\(name) on \(piece.debugDescription): \(ratio)× for twice the notes, \(seconds) s")
            #expect(seconds < 5, "\(name) on 400 KB of \(piece.debugDescription): \(seconds) s")
        }
    }
}
