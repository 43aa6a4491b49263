import Glibc
internal import CNcurses

/// Text from outside (titles, notes, names) as a terminal may show it, and
/// how many columns it takes.
///
/// Control characters would move the cursor or start escape sequences (a
/// hostile title could rewrite the screen or the terminal's settings), and
/// explicit bidi controls would let one field's direction run over the
/// next in a terminal that reorders right-to-left text: both are removed,
/// tabs and line breaks become spaces. Widths are the C library's
/// (`wcwidth`, the same tables the terminal uses) per character, with
/// emoji presentation counted as two columns and combining marks as none.
public enum DisplayText {
    /// `wcwidth` answers in the process's character set: a process that did
    /// not choose a UTF-8 one (`setlocale`) gets C.UTF-8's, so widths never
    /// depend on how the process was started.
    private static let utf8Locale: Bool = {
        let current = (setlocale(LC_CTYPE, nil).map { String(cString: $0) } ?? "C").lowercased()
        if current.contains("utf-8") || current.contains("utf8") { return true }
        return setlocale(LC_CTYPE, "C.UTF-8") != nil
    }()

    /// `text` with nothing a terminal would act on.
    public static func sanitized(_ text: String) -> String { filtered(text, keepingLines: false) }

    /// `text` as lines a terminal prints and acts on in no other way: what
    /// `sanitized` drops goes (C0 and C1 controls, DEL, so no escape
    /// sequence — OSC, DCS, CSI — can start; bidi controls), but line
    /// breaks and tabs stay, for output made of lines (`pods`'s). A
    /// carriage return, form feed or line or paragraph separator is a space.
    public static func printable(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 >= 0xC2 }) else { return text }  // plain ASCII text: as it is
        return filtered(text, keepingLines: true)
    }

    /// The two above: controls and bidi controls dropped; tabs and line feeds
    /// kept (`keepingLines`) or made spaces, as carriage returns always are.
    private static func filtered(_ text: String, keepingLines: Bool) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A: result.append(keepingLines ? scalar : " ")
            case 0x0D: result.append(" ")
            case 0x0B, 0x0C, 0x2028, 0x2029:
                // Line breaks of other kinds: spaces among lines; for one field, \v and \f are controls, the separators text.
                if keepingLines { result.append(" ") } else if scalar.value > 0x0C { result.append(scalar) }
            case 0x00...0x1F, 0x7F...0x9F: continue  // C0 and C1 controls, DEL
            case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: continue  // bidi controls
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// The columns `character` takes: 0 (a combining mark alone), 1 or 2.
    public static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value < 0x7F { return first.value >= 0x20 ? 1 : 0 }
        // An emoji shown as a picture (VS16, or a ZWJ sequence) takes two columns.
        if scalars.contains(where: { $0.value == 0xFE0F }) || (scalars.count > 1 && first.properties.isEmoji
            && scalars.contains(where: { $0.value == 0x200D })) { return 2 }
        _ = utf8Locale
        let width = pods_wcwidth(first.value)
        if width < 0 { return first.properties.isEmojiPresentation ? 2 : 1 }
        return Int(width)
    }

    /// The columns `text` takes.
    public static func width(of text: String) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// `text` cut to at most `columns`, ending in "…" when it was cut.
    public static func truncated(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        guard width(of: text) > columns else { return text }
        var result = ""
        var used = 0
        for character in text {
            let next = width(of: character)
            if used + next > columns - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }

    /// `text` broken into lines of at most `columns`, at spaces where it can.
    public static func wrapped(_ text: String, to columns: Int) -> [String] {
        guard columns > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        var used = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let wordWidth = width(of: String(word))
            if used > 0 && used + 1 + wordWidth > columns {
                lines.append(line)
                (line, used) = ("", 0)
            }
            if wordWidth > columns {  // a word longer than a line is cut where it must be
                for character in word {
                    let next = width(of: character)
                    if used + next > columns { lines.append(line); (line, used) = ("", 0) }
                    line.append(character)
                    used += next
                }
                continue
            }
            if used > 0 { line.append(" "); used += 1 }
            line += word
            used += wordWidth
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}
