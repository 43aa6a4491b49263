/// Rewrites a document, as it streams past, so that libxml2 keeps every
/// character of its text whatever faults it has.
///
/// libxml2 2.9 in recover mode drops every *named* reference in character
/// data once it has seen one well-formedness error (`xmlParseReference`
/// returns early when the document is no longer well-formed), so a stray
/// `&` in a channel title used to turn a later `Q&amp;A: 1 &lt; 2` into
/// `QA: 1 2`. Character references survive any error. So, outside CDATA
/// sections, comments and processing instructions:
///
/// - every named reference libxml2 or HTML knows (`&amp;`, `&eacute;`)
///   becomes its character reference (`&#38;`, `&#233;`);
/// - an unknown name (`&bogus;`) and a bare `&` stay as text (`&#38;bogus;`);
/// - a character reference to a character XML forbids (`&#0;`) becomes
///   U+FFFD, a `<` that starts no markup (`1 < 2`) becomes `&#60;`, and
///   the `>` of a `]]>` in text becomes `&#62;`;
/// - control characters XML forbids (all below U+0020 but tab, line feed
///   and carriage return) are dropped, in CDATA sections too.
///
/// Only for documents in an ASCII-compatible encoding (UTF-8 and the
/// single-byte ones): `&`, `<` and `;` are then those bytes wherever they
/// appear.
struct ReferenceRepair {
    private enum State: Equatable {
        case text
        /// Inside a start or end tag, outside attribute values.
        case tag
        /// Inside an attribute value quoted with this byte.
        case attribute(UInt8)
        case comment
        case cdata
        case processingInstruction
        /// `<!DOCTYPE …>` and other declarations; the depth of `[` brackets.
        case declaration(Int)
    }

    private var state = State.text
    /// Bytes held back because what they start needs more look-ahead.
    private var carry: [UInt8] = []

    /// The longest look-ahead: `&` and an HTML entity name of up to 32 letters and `;`.
    private static let lookAhead = 34

    /// The repaired bytes of the next piece of the document.
    mutating func process(_ bytes: [UInt8]) -> [UInt8] {
        let input = carry.isEmpty ? bytes : carry + bytes
        carry = []
        return repair(input, final: false)
    }

    /// The rest, at the end of the document.
    mutating func finish() -> [UInt8] {
        let input = carry
        carry = []
        return repair(input, final: true)
    }

    // MARK: - Scanning

    private mutating func repair(_ input: [UInt8], final: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var changed = false
        var stoppedAt = input.count
        input.withUnsafeBufferPointer { buffer in
            var index = 0
            var copiedUpTo = 0
            func replace(_ count: Int, with replacement: some Collection<UInt8>) {
                out.append(contentsOf: buffer[copiedUpTo..<index])
                out.append(contentsOf: replacement)
                index += count
                copiedUpTo = index
                changed = true
            }
            scan: while index < buffer.count {
                index = ByteScan.firstControlOrStop(in: buffer, from: index, stops: stopBytes)
                guard index < buffer.count else { break }
                let byte = buffer[index]
                if byte < 0x20 {
                    if byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 } else { replace(1, with: EmptyCollection()) }
                    continue
                }
                switch state {
                case .text, .attribute:
                    if byte == UInt8(ascii: "&") {
                        guard final || buffer.count - index > Self.lookAhead else { stoppedAt = index; break scan }
                        switch Self.reference(in: buffer, at: index) {
                        case .keep(let length): index += length
                        case .replace(let length, let replacement): replace(length, with: replacement)
                        case .literalAmpersand: replace(1, with: Self.ampersand)
                        }
                    } else if byte == UInt8(ascii: "<") {
                        guard final || buffer.count - index > 9 else { stoppedAt = index; break scan }
                        if case .attribute = state {
                            replace(1, with: Self.lessThan)  // never allowed in an attribute value
                        } else if let (next, length) = Self.markup(in: buffer, at: index) {
                            state = next
                            index += length
                        } else {
                            replace(1, with: Self.lessThan)
                        }
                    } else if byte == UInt8(ascii: "]") {
                        // `]]>` may not appear in text.
                        guard final || buffer.count - index >= 3 else { stoppedAt = index; break scan }
                        if Self.matches(Self.cdataEnd, in: buffer, at: index) {
                            index += 2
                            replace(1, with: Self.greaterThan)
                        } else {
                            index += 1
                        }
                    } else {
                        state = .tag  // the attribute's closing quote
                        index += 1
                    }
                case .tag:
                    state = byte == UInt8(ascii: ">") ? .text : .attribute(byte)
                    index += 1
                case .comment, .cdata, .processingInstruction:
                    let end = state == .comment ? Self.commentEnd : state == .cdata ? Self.cdataEnd : Self.processingEnd
                    guard final || buffer.count - index >= end.count else { stoppedAt = index; break scan }
                    if Self.matches(end, in: buffer, at: index) {
                        state = .text
                        index += end.count
                    } else {
                        index += 1
                    }
                case .declaration(let depth):
                    if byte == UInt8(ascii: "[") { state = .declaration(depth + 1) }
                    else if byte == UInt8(ascii: "]") { state = .declaration(max(0, depth - 1)) }
                    else if depth == 0 { state = .text }  // its `>`
                    index += 1
                }
            }
            if changed { out.append(contentsOf: buffer[copiedUpTo..<stoppedAt]) }
        }
        if stoppedAt < input.count { carry = Array(input[stoppedAt...]) }
        guard changed else { return stoppedAt == input.count ? input : Array(input[..<stoppedAt]) }
        return out
    }

    /// The bytes after which the current state may change (besides the
    /// control characters, which every state looks at).
    private var stopBytes: (UInt8, UInt8, UInt8) {
        switch state {
        case .text: (0x26, 0x3C, 0x5D)  // & < ]
        case .attribute(let quote): (0x26, 0x3C, quote)
        case .tag: (0x22, 0x27, 0x3E)  // " ' >
        case .comment: (0x2D, 0x2D, 0x2D)  // -
        case .cdata: (0x5D, 0x5D, 0x5D)  // ]
        case .processingInstruction: (0x3F, 0x3F, 0x3F)  // ?
        case .declaration: (0x5B, 0x5D, 0x3E)  // [ ] >
        }
    }

    private static let commentStart = Array("<!--".utf8)
    private static let cdataStart = Array("<![CDATA[".utf8)
    private static let commentEnd = Array("-->".utf8)
    private static let cdataEnd = Array("]]>".utf8)
    private static let processingEnd = Array("?>".utf8)
    private static let ampersand = Array("&#38;".utf8)
    private static let lessThan = Array("&#60;".utf8)
    private static let greaterThan = Array("&#62;".utf8)
    private static let replacementCharacter = Array("&#65533;".utf8)

    /// What a `<` at `start` opens, and how many bytes its opening takes;
    /// nil when it opens nothing (a `<` in text such as `1 < 2`).
    private static func markup(in buffer: UnsafeBufferPointer<UInt8>, at start: Int) -> (State, Int)? {
        guard start + 1 < buffer.count else { return nil }
        let next = buffer[start + 1]
        if next == UInt8(ascii: "!") {
            if matches(commentStart, in: buffer, at: start) { return (.comment, commentStart.count) }
            if matches(cdataStart, in: buffer, at: start) { return (.cdata, cdataStart.count) }
            return (.declaration(0), 2)
        }
        if next == UInt8(ascii: "?") { return (.processingInstruction, 2) }
        // A name starts with a letter, `_`, `:` or any non-ASCII character.
        if next == UInt8(ascii: "/") || next == UInt8(ascii: "_") || next == UInt8(ascii: ":") || next >= 0x80
            || (next | 0x20) >= UInt8(ascii: "a") && (next | 0x20) <= UInt8(ascii: "z") {
            return (.tag, 1)
        }
        return nil
    }

    private static func matches(_ bytes: [UInt8], in buffer: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        guard start + bytes.count <= buffer.count else { return false }
        for offset in bytes.indices where buffer[start + offset] != bytes[offset] { return false }
        return true
    }

    // MARK: - References

    private enum Reference {
        /// A character reference to an allowed character: as it is.
        case keep(Int)
        /// A named reference, or a character reference to a forbidden
        /// character, and what it becomes.
        case replace(Int, [UInt8])
        /// Not a reference: the `&` is text.
        case literalAmpersand
    }

    private static func reference(in buffer: UnsafeBufferPointer<UInt8>, at start: Int) -> Reference {
        guard let (scalar, end) = HTMLText.reference(in: buffer, at: start) else {
            return .literalAmpersand
        }
        let isCharacterReference = buffer[start + 1] == UInt8(ascii: "#")
        guard isAllowed(scalar.value) else {
            return isCharacterReference ? .replace(end - start, replacementCharacter) : .literalAmpersand
        }
        return isCharacterReference ? .keep(end - start) : .replace(end - start, Array("&#\(scalar.value);".utf8))
    }

    /// XML 1.0's `Char`.
    private static func isAllowed(_ value: UInt32) -> Bool {
        switch value {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}
