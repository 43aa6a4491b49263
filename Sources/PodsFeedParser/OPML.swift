import Foundation

/// OPML 2.0 subscription lists, as gPodder and AntennaPod import and export them.
public enum OPML {
    /// One subscription.
    public struct Outline: Sendable, Equatable {
        public var title: String
        public var feedURL: String
        public var link: String?

        public init(title: String, feedURL: String, link: String? = nil) {
            self.title = title
            self.feedURL = feedURL
            self.link = link
        }
    }

    /// Outlines read at most from one file: a listener's export has hundreds;
    /// more is no subscription list (each one costs a fetch).
    public static let maximumOutlines = 5000

    /// Every outline with an `xmlUrl`, at any depth (folders are flattened), in
    /// document order, each feed once; a file with more than `maximumOutlines`
    /// feeds is refused whole.
    public static func parse(_ data: Data) throws(FeedError) -> [Outline] {
        let limit = FeedParser.defaultSizeLimit
        guard data.count <= limit else { throw FeedError(.tooLarge, "the feed is larger than \(limit / 1_048_576) MB") }
        let collector = OutlineCollector()
        let parser = try XMLStreamParser(handler: collector)
        var repair = DocumentRepair()
        for bytes in [repair.process(data), repair.finish()] {
            var failure: FeedError?
            bytes.withUnsafeBytes { raw in
                do throws(FeedError) { try parser.feed(raw) } catch { failure = error }
            }
            if let failure { throw failure }
        }
        try parser.finish()
        guard collector.sawOPML else { throw FeedError(.notAFeed, "not an OPML file: the root element is not <opml>") }
        guard !collector.tooMany else {
            throw FeedError(.tooLarge, "the OPML file names more than \(maximumOutlines) feeds; import it in parts")
        }
        return collector.outlines
    }

    /// An OPML 2.0 document listing `outlines`.
    public static func document(_ outlines: [Outline], title: String = "Pods subscriptions", date: Date = Date()) -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<opml version="2.0">"#,
            "  <head>",
            "    <title>\(escaped(title))</title>",
            "    <dateCreated>\(rfc822(date))</dateCreated>",
            "  </head>",
            "  <body>",
        ]
        for outline in outlines {
            var attributes = #"type="rss" text="\#(escaped(outline.title))" title="\#(escaped(outline.title))" xmlUrl="\#(escaped(outline.feedURL))""#
            if let link = outline.link { attributes += #" htmlUrl="\#(escaped(link))""# }
            lines.append("    <outline \(attributes)/>")
        }
        lines += ["  </body>", "</opml>", ""]
        return lines.joined(separator: "\n")
    }

    private static func rfc822(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    private static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            case "\t", "\r": out.unicodeScalars.append(character)
            case _ where character.value < 0x20 || character.value == 0xFFFE || character.value == 0xFFFF:
                break  // not allowed in XML at all: dropped, or the export would not parse
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    private final class OutlineCollector: XMLStreamHandler {
        var outlines: [Outline] = []
        var sawOPML = false
        var tooMany = false
        private var seen = Set<String>()
        private var depth = 0

        func startElement(_ name: XMLName, attributes: XMLAttributes) {
            depth += 1
            if depth == 1 { sawOPML = name.local.lowercased() == "opml" }
            guard sawOPML, !tooMany, name.local.lowercased() == "outline" else { return }
            let attributes = attributes.all
            func value(_ key: String) -> String? {
                attributes.first { $0.name.lowercased() == key.lowercased() }?.value
                    .trimmingCharacters(in: .whitespacesAndNewlines).nonEmpty
            }
            guard let url = value("xmlUrl"), seen.insert(url).inserted else { return }
            guard outlines.count < maximumOutlines else {
                tooMany = true
                return
            }
            outlines.append(Outline(title: value("title") ?? value("text") ?? url, feedURL: url, link: value("htmlUrl")))
        }

        func endElement() { depth -= 1 }

        func text(_ bytes: UnsafeBufferPointer<UInt8>) {}
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
