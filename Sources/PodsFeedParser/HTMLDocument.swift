import Foundation

/// What a reader of an episode's show notes wants from their HTML: the
/// paragraphs as plain text, and the links.
public enum HTMLDocument {
    /// A link in the notes.
    public struct Link: Sendable, Equatable {
        public var text: String
        public var url: String

        public init(text: String, url: String) {
            self.text = text
            self.url = url
        }
    }

    /// Links at most (a page of notes has tens).
    static let maximumLinks = 200

    /// The text of each paragraph (split at `p`, `br`, `div`, `li`,
    /// headings and table rows), tags dropped and references decoded.
    public static func paragraphs(_ html: String) -> [String] {
        var paragraphs: [String] = []
        var current = html.startIndex
        var searchFrom = html.startIndex
        while let open = html[searchFrom...].firstIndex(of: "<") {
            let close = html[open...].firstIndex(of: ">") ?? html.endIndex
            let name = html[html.index(after: open)..<close].drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }.lowercased()
            if ["p", "br", "div", "li", "ul", "ol", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote"].contains(name) {
                paragraphs.append(HTMLText.plainText(String(html[current..<open])))
                current = close < html.endIndex ? html.index(after: close) : close
            }
            guard close < html.endIndex else { break }
            searchFrom = html.index(after: close)
        }
        paragraphs.append(HTMLText.plainText(String(html[current...])))
        return paragraphs.filter { !$0.isEmpty }
    }

    /// The feeds a web page names in its head: each `<link rel="alternate"
    /// type="application/rss+xml">` (or Atom) `href`, resolved against `base`;
    /// a page from the web names only http(s) feeds (`URLPolicy`).
    public static func feedLinks(_ html: String, base: String) -> [String] {
        var links: [String] = []
        var from = html.startIndex
        let baseURL = URL(string: base)
        while links.count < 20, let start = html.range(of: "<link", options: .caseInsensitive, range: from..<html.endIndex) {
            guard let end = html[start.upperBound...].firstIndex(of: ">") else { break }
            from = end
            let attributes = Self.attributes(String(html[start.upperBound..<end]))
            let type = attributes["type"]?.lowercased() ?? ""
            guard attributes["rel"]?.lowercased().split(separator: " ").contains("alternate") == true,
                  type == "application/rss+xml" || type == "application/atom+xml",
                  let href = attributes["href"], !href.isEmpty,
                  let resolved = URL(string: href, relativeTo: baseURL)?.absoluteString,
                  URLPolicy(documentURL: baseURL).allows(resolved) else { continue }
            links.append(resolved)
        }
        return links
    }

    /// A tag's attributes (`name="value"`, `name='value'`, `name=value`), names in lower case.
    static func attributes(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var scanner = Substring(text)
        while let equals = scanner.firstIndex(of: "=") {
            let name = scanner[..<equals].split(whereSeparator: { $0.isWhitespace || $0 == "/" }).last.map { $0.lowercased() } ?? ""
            var rest = scanner[scanner.index(after: equals)...].drop { $0 == " " }
            let value: Substring
            if let quote = rest.first, quote == "\"" || quote == "'" {
                rest = rest.dropFirst()
                let close = rest.firstIndex(of: quote) ?? rest.endIndex
                value = rest[..<close]
                scanner = close < rest.endIndex ? rest[rest.index(after: close)...] : ""
            } else {
                let close = rest.firstIndex { $0.isWhitespace } ?? rest.endIndex
                value = rest[..<close]
                scanner = rest[close...]
            }
            if !name.isEmpty { result[name] = HTMLText.plainText(String(value)) }
        }
        return result
    }

    /// Each `<a href>`'s text and URL, in order, once each.
    public static func links(_ html: String) -> [Link] {
        var links: [Link] = []
        var seen = Set<String>()
        let lower = html.lowercased()
        var from = lower.startIndex
        while links.count < maximumLinks, let anchor = lower.range(of: "<a", range: from..<lower.endIndex) {
            from = anchor.upperBound
            guard let next = lower[anchor.upperBound...].first, next == " " || next == "\t" || next == "\n",
                  let tagEnd = lower[anchor.upperBound...].firstIndex(of: ">"),
                  let href = lower.range(of: "href", range: anchor.upperBound..<tagEnd) else { continue }
            var index = lower[href.upperBound..<tagEnd].drop { $0 == " " }.startIndex
            guard index < tagEnd, lower[index] == "=" else { continue }
            index = lower[lower.index(after: index)..<tagEnd].drop { $0 == " " }.startIndex
            guard index < tagEnd else { continue }
            let quote = lower[index]
            let valueStart = quote == "\"" || quote == "'" ? lower.index(after: index) : index
            let valueEnd = lower[valueStart..<tagEnd].firstIndex { quote == "\"" || quote == "'" ? $0 == quote : $0 == " " } ?? tagEnd
            let url = HTMLText.plainText(String(html[valueStart..<valueEnd]))
            let textEnd = lower.range(of: "</a", range: tagEnd..<lower.endIndex)?.lowerBound ?? lower.endIndex
            let text = HTMLText.plainText(String(html[lower.index(after: tagEnd)..<textEnd]))
            from = textEnd
            guard url.hasPrefix("http://") || url.hasPrefix("https://") || url.hasPrefix("mailto:"), seen.insert(url).inserted else { continue }
            links.append(Link(text: text, url: url))
        }
        return links
    }
}
