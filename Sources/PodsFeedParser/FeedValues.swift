import Foundation

/// Small conversions from feed text to values.
enum FeedValues {
    /// `S`, `M:S`, `H:M:S`, with fractions; nil for anything else.
    static func duration(_ text: String) -> Double? {
        let trimmed = TextBytes.trim(text)
        guard !trimmed.isEmpty else { return nil }
        let fields = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count <= 3 else { return nil }
        var seconds = 0.0
        for field in fields {
            guard let value = Double(field), value.isFinite, value >= 0 else { return nil }
            seconds = seconds * 60 + value
        }
        return seconds
    }

    /// yes/explicit/true → true; no/clean/false → false; else nil.
    static func flag(_ text: String) -> Bool? {
        switch TextBytes.trim(text).lowercased() {
        case "yes", "explicit", "true": true
        case "no", "clean", "false": false
        default: nil
        }
    }

    /// A whole number, also from "3.0"; nil otherwise.
    static func integer(_ text: String) -> Int? {
        let trimmed = TextBytes.trim(text)
        if let value = Int(trimmed) { return value }
        if let value = Double(trimmed), value.isFinite, value == value.rounded(), abs(value) < 1e15 { return Int(value) }
        return nil
    }

    /// Trims; nil when empty.
    static func nonEmpty(_ text: String?) -> String? {
        guard let text else { return nil }
        let trimmed = TextBytes.trim(text)
        return trimmed.isEmpty ? nil : trimmed
    }

}

/// Resolves links against the feed's URL and normalises podcast schemes.
struct URLResolver {
    let base: URL?

    /// `feed://` and `itpc://` become `http://`; relative links resolve
    /// against the base; nil for empty text.
    func resolve(_ text: String?) -> String? {
        guard var trimmed = FeedValues.nonEmpty(text) else { return nil }
        if Self.isPlainAbsolute(trimmed) { return trimmed }
        for scheme in ["feed://", "itpc://", "itms://"] where trimmed.lowercased().hasPrefix(scheme) {
            trimmed = "http://" + trimmed.dropFirst(scheme.count)
        }
        if trimmed.lowercased().hasPrefix("feed:http") { trimmed = String(trimmed.dropFirst(5)) }
        if let url = URL(string: trimmed), url.scheme != nil { return trimmed }
        guard let base, let url = URL(string: trimmed, relativeTo: base) ?? URL(string: trimmed.addingPercentEncoding(
            withAllowedCharacters: .urlFragmentAllowed) ?? "", relativeTo: base) else { return trimmed }
        return url.absoluteURL.absoluteString
    }
}

extension URLResolver {
    /// `http://` or `https://` with no spaces: nothing to resolve or normalise
    /// (the common case, checked without parsing a URL).
    fileprivate static func isPlainAbsolute(_ text: String) -> Bool {
        var utf8 = text.utf8.makeIterator()
        let expected = Array("http".utf8)
        for byte in expected { guard let next = utf8.next(), next | 0x20 == byte else { return false } }
        var next = utf8.next()
        if next.map({ $0 | 0x20 }) == UInt8(ascii: "s") { next = utf8.next() }
        guard next == UInt8(ascii: ":"), utf8.next() == UInt8(ascii: "/"), utf8.next() == UInt8(ascii: "/") else { return false }
        while let byte = utf8.next() { if byte <= 0x20 { return false } }
        return true
    }
}

/// HTML to plain text: tags dropped, entities decoded, whitespace squashed.
enum HTMLText {
    /// Whether the text looks like HTML: a tag (`<p`, `</`, `<!`) or an entity (`&amp;`).
    static func looksLikeHTML(_ text: String) -> Bool {
        var utf8 = text.utf8.makeIterator()
        var previous: UInt8 = 0
        var entityStart = -1, position = 0
        while let byte = utf8.next() {
            defer { previous = byte; position += 1 }
            if previous == UInt8(ascii: "<"), isLetter(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "!") {
                return true
            }
            if byte == UInt8(ascii: "&") {
                entityStart = position
            } else if entityStart >= 0 {
                if byte == UInt8(ascii: ";"), position - entityStart > 1 { return true }
                let ok = isLetter(byte) || (byte >= 0x30 && byte <= 0x39) || (byte == UInt8(ascii: "#") && position == entityStart + 1)
                if !ok || position - entityStart > 10 { entityStart = -1 }
            }
        }
        return false
    }

    static func plainText(_ html: String) -> String {
        // Tags first, then references: an encoded "&lt;b&gt;" stays text.
        let bytes = Array(html.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<"), let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) {
                if isBlockTag(bytes[(index + 1)..<close]) { output.append(0x20) }  // "a<br>b" is "a b", "wo<b>rd</b>" is "word"
                index = close + 1
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return TextBytes.squash(decodeReferences(String(decoding: output, as: UTF8.self)))
    }

    /// Replaces character references and named entities, leaving markup alone.
    static func decodeReferences(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "&"), let semicolon = bytes[index..<min(index + 12, bytes.count)].firstIndex(of: UInt8(ascii: ";")),
               let decoded = entity(String(decoding: bytes[(index + 1)..<semicolon], as: UTF8.self)) {
                output.append(contentsOf: decoded.utf8)
                index = semicolon + 1
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let blockTags: [[UInt8]] = [
        "br", "p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th", "blockquote", "hr", "pre", "table",
    ].map { Array($0.utf8) }

    private static func isBlockTag(_ inside: ArraySlice<UInt8>) -> Bool {
        let name = inside.drop { $0 == UInt8(ascii: "/") }.prefix { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) }
        return blockTags.contains { tag in tag.count == name.count && zip(tag, name).allSatisfy { $0 == $1 | 0x20 || $0 == $1 } }
    }

    @inline(__always)
    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "hellip": "…", "mdash": "—",
        "ndash": "–", "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“", "copy": "©", "reg": "®", "trade": "™",
    ]

    private static func entity(_ name: String) -> String? {
        if name.hasPrefix("#x") || name.hasPrefix("#X"), let code = UInt32(name.dropFirst(2), radix: 16) {
            return Unicode.Scalar(code).map { String(Character($0)) }
        }
        if name.hasPrefix("#"), let code = UInt32(name.dropFirst()) {
            return Unicode.Scalar(code).map { String(Character($0)) }
        }
        return named[name]
    }
}
