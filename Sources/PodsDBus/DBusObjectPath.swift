/// A valid D-Bus object path, such as `/org/mpris/MediaPlayer2`.
///
/// Validation happens at construction, so an invalid path never reaches
/// libdbus (which would abort the process on one).
public struct DBusObjectPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The path text.
    public let rawValue: String

    /// Validates `rawValue`; returns nil unless it is `/` or `/`-separated
    /// non-empty elements of `[A-Za-z0-9_]`.
    public init?(_ rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// For string literals known to be valid; an invalid literal is a
    /// programming error caught by the first test that uses it.
    public init(validLiteral rawValue: StaticString) {
        let text = rawValue.description
        precondition(Self.isValid(text), "invalid object path literal \(text)")
        self.rawValue = text
    }

    public static let root = DBusObjectPath(validLiteral: "/")

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Appends one element made safe for a path: bytes outside `[A-Za-z0-9]`
    /// become `_XX` hex escapes, so any text maps to a unique valid element.
    public func appending(escaping element: String) -> DBusObjectPath {
        var escaped = ""
        for byte in element.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                escaped += "_" + String(byte, radix: 16, uppercase: false).leftPadded(to: 2)
            }
        }
        if escaped.isEmpty { escaped = "_" }
        let prefix = rawValue == "/" ? "" : rawValue
        return DBusObjectPath(unchecked: prefix + "/" + escaped)
    }

    /// The elements of the path (`/a/b` has `["a", "b"]`).
    public var elements: [Substring] { rawValue.split(separator: "/") }

    private init(unchecked rawValue: String) { self.rawValue = rawValue }

    static func isValid(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousWasSlash = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash { return false }
                previousWasSlash = true
                continue
            }
            previousWasSlash = false
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                continue
            default:
                return false
            }
        }
        return true
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
