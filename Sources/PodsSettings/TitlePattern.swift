/// A case-insensitive regular expression over titles (`skip-chapters`,
/// `ignore-episodes`). The listener writes it; the titles it reads are any
/// feed's, so both are bounded: a pattern is at most `maximumLength`
/// characters, and only a title's first `readLength` are searched.
///
/// Only the text is kept (a compiled `Regex` is not `Sendable`): `matcher()`
/// compiles it for one batch of titles.
public struct TitlePattern: Sendable, Hashable, CustomStringConvertible {
    public let source: String

    public static let maximumLength = 200
    public static let readLength = 300

    /// The pattern `source`; an error that says why when it is no regular expression.
    public init(_ source: String) throws(SettingsError) {
        guard source.count <= Self.maximumLength else {
            throw SettingsError("a pattern is at most \(Self.maximumLength) characters, not \(source.count)")
        }
        do {
            _ = try Regex(source)
        } catch {
            throw SettingsError("'\(source.prefix(60))' is not a regular expression: \(String(describing: error).prefix(120))")
        }
        self.source = source
    }

    /// The pattern in `text`, or nil for an empty one (nothing to match) or one that is no regular expression.
    public static func optional(_ text: String?) -> TitlePattern? {
        guard let text, !text.isEmpty else { return nil }
        return try? TitlePattern(text)
    }

    /// Whether the pattern occurs anywhere in a title (compiled once for every title it is asked about).
    public func matcher() -> (String) -> Bool {
        guard let regex = try? Regex(source).ignoresCase() else { return { _ in false } }
        return { title in
            let read = title.count > Self.readLength ? String(title.prefix(Self.readLength)) : title
            return (try? regex.firstMatch(in: read)) != nil
        }
    }

    public var description: String { source }
}
