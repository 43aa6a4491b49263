/// Text from outside as a label may show it: no control characters (a
/// terminal's escapes, bidi overrides and isolates that would reorder what
/// is around them) and at most `limit` characters, so a 5 MB title costs
/// no more to lay out than a long one.
enum DisplaySafe {
    static let limit = 20_000
    /// For a text view, which lays out only what it shows (show notes).
    static let longLimit = 100_000

    static func text(_ text: String, limit: Int = DisplaySafe.limit) -> String {
        var kept = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < limit else { kept.append("…"); break }
            if scalar == "\n" || scalar == "\t" { kept.append(scalar); count += 1; continue }
            switch scalar.value {
            case 0..<0x20, 0x7F..<0xA0, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: continue
            default: kept.append(scalar); count += 1
            }
        }
        return String(kept)
    }
}
