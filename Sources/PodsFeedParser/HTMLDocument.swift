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
    ///
    /// Searched in the note's own UTF-8 bytes, tag and attribute names
    /// compared in ASCII case only: one index space. (A lowercased copy's
    /// indices do not fit the original: "İ" lowercases to three bytes
    /// where it had two, the Kelvin sign to one where it had three.)
    public static func links(_ html: String) -> [Link] {
        let bytes = Array(html.utf8)
        var links: [Link] = []
        var seen = Set<String>()
        var from = 0
        // Every byte is looked at a bounded number of times (REVIEW-4, N4: a
        // search for `>` from each of N unclosed `<a ` cost N²): a tag's
        // end is found once, a failed tag is passed whole, and with no `>`
        // left no later `<a` can be a tag either.
        while links.count < maximumLinks, let anchor = find("<a", in: bytes, from: from, to: bytes.count) {
            from = anchor + 2
            guard from < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[from]) else { continue }
            guard let tagEnd = bytes[from...].firstIndex(of: UInt8(ascii: ">")) else { break }
            from = tagEnd + 1
            guard let href = find("href", in: bytes, from: anchor + 2, to: tagEnd) else { continue }
            var index = skipSpaces(bytes, from: href + 4, to: tagEnd)
            guard index < tagEnd, bytes[index] == UInt8(ascii: "=") else { continue }
            index = skipSpaces(bytes, from: index + 1, to: tagEnd)
            guard index < tagEnd else { continue }
            let quote = bytes[index]
            let quoted = quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'")
            let valueStart = quoted ? index + 1 : index
            let valueEnd = bytes[valueStart..<tagEnd].firstIndex { quoted ? $0 == quote : $0 == 0x20 } ?? tagEnd
            var url = HTMLText.plainText(String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self))
            // A mail link opens a message to its address, nothing more: its query (?attach=, ?body=) goes.
            if url.hasPrefix("mailto:"), let query = url.firstIndex(of: "?") { url = String(url[..<query]) }
            let textEnd = find("</a", in: bytes, from: tagEnd, to: bytes.count) ?? bytes.count
            let text = HTMLText.plainText(String(decoding: bytes[(tagEnd + 1)..<textEnd], as: UTF8.self))
            from = textEnd
            guard url.hasPrefix("http://") || url.hasPrefix("https://") || url.hasPrefix("mailto:"), seen.insert(url).inserted else { continue }
            links.append(Link(text: text, url: url))
        }
        return links
    }

    /// The first place of `pattern` (ASCII, lower case) in `bytes[from..<to]`,
    /// comparing letters in ASCII case only; nil when it is not there.
    static func find(_ pattern: StaticString, in bytes: [UInt8], from: Int, to: Int) -> Int? {
        let needle = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
        let end = min(to, bytes.count)
        guard !needle.isEmpty, from >= 0, end - from >= needle.count else { return nil }
        outer: for start in from...(end - needle.count) {
            for (offset, wanted) in needle.enumerated() {
                var byte = bytes[start + offset]
                if byte >= 0x41, byte <= 0x5A { byte |= 0x20 }
                guard byte == wanted else { continue outer }
            }
            return start
        }
        return nil
    }

    private static func skipSpaces(_ bytes: [UInt8], from: Int, to: Int) -> Int {
        var index = from
        while index < to, bytes[index] == 0x20 { index += 1 }
        return index
    }
}
