import Foundation

/// Small conversions from feed text to values.
enum FeedValues {
    /// `S`, `M:S`, `H:M:S`, with fractions; nil for anything else.
    static func duration(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
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
        switch text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() {
        case "yes", "explicit", "true": true
        case "no", "clean", "false": false
        default: nil
        }
    }

    /// A whole number, also from "3.0"; nil otherwise.
    static func integer(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let value = Int(trimmed) { return value }
        if let value = Double(trimmed), value.isFinite, value == value.rounded(), abs(value) < 1e15 { return Int(value) }
        return nil
    }

    /// Trims; nil when empty.
    static func nonEmpty(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    /// Whitespace runs become one space.
    static func squash(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}

/// Resolves links against the feed's URL and normalises podcast schemes.
struct URLResolver {
    let base: URL?

    /// `feed://` and `itpc://` become `http://`; relative links resolve
    /// against the base; nil for empty text.
    func resolve(_ text: String?) -> String? {
        guard var trimmed = FeedValues.nonEmpty(text) else { return nil }
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

/// HTML to plain text: tags dropped, entities decoded, whitespace squashed.
enum HTMLText {
    /// Whether the text looks like HTML (a tag or an entity).
    static func looksLikeHTML(_ text: String) -> Bool {
        var previousWasOpen = false
        for scalar in text.unicodeScalars {
            if previousWasOpen, scalar.properties.isAlphabetic || scalar == "/" || scalar == "!" { return true }
            previousWasOpen = scalar == "<"
        }
        return text.contains("&") && text.range(of: "&[a-zA-Z#][a-zA-Z0-9]*;", options: .regularExpression) != nil
    }

    static func plainText(_ html: String) -> String {
        var output = ""
        output.reserveCapacity(html.utf8.count)
        var index = html.startIndex
        while index < html.endIndex {
            let character = html[index]
            if character == "<", let close = html[index...].firstIndex(of: ">") {
                let tag = html[html.index(after: index)..<close].lowercased()
                if tag.hasPrefix("br") || tag.hasPrefix("p") || tag.hasPrefix("/p") || tag.hasPrefix("li") || tag.hasPrefix("div") {
                    output.append(" ")
                }
                index = html.index(after: close)
            } else if character == "&", let semicolon = html[index...].prefix(12).firstIndex(of: ";"),
                      let decoded = entity(String(html[html.index(after: index)..<semicolon])) {
                output.append(decoded)
                index = html.index(after: semicolon)
            } else {
                output.append(character)
                index = html.index(after: index)
            }
        }
        return FeedValues.squash(output)
    }

    /// Replaces character references and named entities, leaving markup alone.
    static func decodeReferences(_ text: String) -> String {
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == "&", let semicolon = text[index...].prefix(12).firstIndex(of: ";"),
               let decoded = entity(String(text[text.index(after: index)..<semicolon])) {
                output.append(decoded)
                index = text.index(after: semicolon)
            } else {
                output.append(text[index])
                index = text.index(after: index)
            }
        }
        return output
    }

    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "hellip": "…", "mdash": "—",
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
