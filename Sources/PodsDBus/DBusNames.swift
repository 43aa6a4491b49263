/// Validation of bus, interface and member names (libdbus aborts on invalid ones).
public enum DBusNames {
    /// `org.mpris.MediaPlayer2`: two or more dot-separated elements of
    /// `[A-Za-z0-9_]`, none starting with a digit, at most 255 bytes.
    public static func isValidInterface(_ name: String) -> Bool {
        isDotted(name, allowHyphen: false, allowDigitStart: false)
    }

    /// A well-known (`org.mpris.MediaPlayer2.pods`) or unique (`:1.42`) bus name.
    public static func isValidBusName(_ name: String) -> Bool {
        if name.hasPrefix(":") {
            return isDotted(String(name.dropFirst()), allowHyphen: true, allowDigitStart: true)
        }
        return isDotted(name, allowHyphen: true, allowDigitStart: false)
    }

    /// `PlayPause`: one element of `[A-Za-z0-9_]`, not starting with a digit.
    public static func isValidMember(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 255, !isDigit(first) else { return false }
        return name.utf8.allSatisfy { isWordByte($0, allowHyphen: false) }
    }

    private static func isDotted(_ name: String, allowHyphen: Bool, allowDigitStart: Bool) -> Bool {
        guard name.utf8.count <= 255 else { return false }
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        for element in elements {
            guard let first = element.utf8.first else { return false }
            if !allowDigitStart, isDigit(first) { return false }
            guard element.utf8.allSatisfy({ isWordByte($0, allowHyphen: allowHyphen) }) else { return false }
        }
        return true
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isWordByte(_ byte: UInt8, allowHyphen: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            true
        case UInt8(ascii: "-"):
            allowHyphen
        default:
            false
        }
    }
}
