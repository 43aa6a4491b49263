/// A case-insensitive regular expression over titles (`skip-chapters`,
/// `ignore-episodes`, playlists). The listener writes it; the titles it reads
/// are any feed's. Lengths bound nothing by themselves (a backtracking
/// `(a+)+$` doubles its cost with each character of a title), so it is
/// matched by `LinearPattern`, in time the title's length times the
/// pattern's size; and both are bounded too: a pattern is at most
/// `maximumLength` characters (and four bytes each), and only a title's
/// first `readLength` characters are searched.
///
/// A pattern read back from a file or the library is checked again by the
/// same initializer (`optional`): one an older Pods let through that this
/// one refuses matches nothing.
public struct TitlePattern: Sendable, Hashable, CustomStringConvertible {
    public let source: String

    public static let maximumLength = 200
    public static let readLength = 300

    /// The pattern `source`; an error that says why when it is no regular expression.
    public init(_ source: String) throws(SettingsError) {
        guard source.utf8.count <= Self.maximumLength * 4, source.count <= Self.maximumLength else {
            throw SettingsError("a pattern is at most \(Self.maximumLength) characters, not \(source.count)")
        }
        do throws(SettingsError) {
            compiled = try LinearPattern(source)
        } catch {
            throw SettingsError("'\(source.prefix(60))' is not a regular expression title patterns take: \(error.message)")
        }
        self.source = source
    }

    private let compiled: LinearPattern

    public static func == (left: TitlePattern, right: TitlePattern) -> Bool { left.source == right.source }
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }

    /// The pattern in `text`, or nil for an empty one (nothing to match) or one that is no regular expression.
    public static func optional(_ text: String?) -> TitlePattern? {
        guard let text, !text.isEmpty else { return nil }
        return try? TitlePattern(text)
    }

    /// Whether the pattern occurs anywhere in a title.
    public func matches(_ title: String) -> Bool {
        // A title of at most `readLength` bytes has at most that many characters: read as it is.
        if title.utf8.count <= Self.readLength { return compiled.occurs(in: title.unicodeScalars) }
        // The first characters, found without walking a title of one huge
        // character (a letter with millions of combining marks) whole.
        let scalars = title.unicodeScalars.prefix(Self.readLength * 4)
        let read = String(String.UnicodeScalarView(scalars)).prefix(Self.readLength)
        return compiled.occurs(in: read.unicodeScalars)
    }

    /// `matches` as a function, for a batch of titles.
    public func matcher() -> @Sendable (String) -> Bool { { [self] in matches($0) } }

    public var description: String { source }
}
