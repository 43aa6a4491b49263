import Foundation

/// Small conversions from feed text to values.
enum FeedValues {
    /// `S`, `M:S`, `H:M:S`, with fractions; nil for anything else, and for
    /// a time no episode has (`MediaSeconds`).
    static func duration(_ text: String) -> Double? {
        let trimmed = TextBytes.trim(text)
        guard !trimmed.isEmpty else { return nil }
        let fields = trimmed.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard fields.count <= 3 else { return nil }
        var seconds = 0.0
        for field in fields {
            guard let value = wholeNumber(field) ?? Double(Substring(field)), value.isFinite, value >= 0 else { return nil }
            seconds = seconds * 60 + value
        }
        return MediaSeconds.checked(seconds)
    }

    /// Up to 9 decimal digits, without parsing a floating-point number.
    private static func wholeNumber(_ digits: Substring.UTF8View) -> Double? {
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return Double(value)
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

    /// Bits per second: a positive number up to 100 Mbit/s; nil otherwise.
    static func bitrate(_ text: String) -> Double? {
        guard let value = Double(TextBytes.trim(text)), value.isFinite, value > 0, value <= 100_000_000 else { return nil }
        return value
    }

    /// Trims; nil when empty.
    static func nonEmpty(_ text: String?) -> String? {
        guard let text else { return nil }
        let trimmed = TextBytes.trim(text)
        return trimmed.isEmpty ? nil : trimmed
    }

}

/// Podcast URL schemes, as feeds and directories write them.
public enum PodcastURL {
    /// `feed://`, `itpc://`, `itms://` and `pcast://` as `http://`, and
    /// `feed:https://…` as `https://…`; anything else as it is.
    public static func normalizingScheme(_ text: String) -> String {
        let lower = text.lowercased()
        if lower.hasPrefix("feed:http") { return String(text.dropFirst(5)) }
        if let scheme = ["feed://", "itpc://", "itms://", "pcast://"].first(where: lower.hasPrefix) {
            return "http://" + text.dropFirst(scheme.count)
        }
        return text
    }
}

/// Resolves links against the feed's URL and normalises podcast schemes.
struct URLResolver {
    let base: URL?
    /// What the document may name: set by the document's own URL, never by
    /// an `xml:base` inside it.
    let policy: URLPolicy

    /// Podcast schemes become `http(s)://` (`PodcastURL`); relative links
    /// resolve against the base; nil for empty text and for what the
    /// document may not name (`URLPolicy`: a remote feed's `file:` links).
    func resolve(_ text: String?) -> String? {
        guard let nonEmpty = FeedValues.nonEmpty(text) else { return nil }
        if Self.isPlainAbsolute(nonEmpty) { return nonEmpty }
        let resolved = resolveOther(nonEmpty)
        return policy.allows(resolved) ? resolved : nil
    }

    private func resolveOther(_ text: String) -> String {
        let trimmed = PodcastURL.normalizingScheme(text)
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
        var text = text
        return text.withUTF8 { utf8 in
            guard utf8.count > 7, utf8[0] | 0x20 == UInt8(ascii: "h"), utf8[1] | 0x20 == UInt8(ascii: "t"),
                  utf8[2] | 0x20 == UInt8(ascii: "t"), utf8[3] | 0x20 == UInt8(ascii: "p") else { return false }
            let colon = utf8[4] | 0x20 == UInt8(ascii: "s") ? 5 : 4
            guard utf8.count > colon + 2, utf8[colon] == UInt8(ascii: ":"), utf8[colon + 1] == UInt8(ascii: "/"),
                  utf8[colon + 2] == UInt8(ascii: "/") else { return false }
            return !utf8.contains { $0 <= 0x20 }
        }
    }
}
