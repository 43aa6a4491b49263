import Foundation
internal import CLibXML2

/// HTML to plain text: tags dropped, entities decoded, whitespace squashed,
/// in one pass over the bytes.
enum HTMLText {
    /// Whether the text looks like HTML: a tag (`<p`, `</`, `<!`) or an entity (`&amp;`).
    static func looksLikeHTML(_ text: String) -> Bool {
        var previous: UInt8 = 0
        var entityStart = -1, position = 0
        for byte in text.utf8 {
            defer { previous = byte; position += 1 }
            if previous == UInt8(ascii: "<"), isLetter(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "!") {
                return true
            }
            if byte == UInt8(ascii: "&") {
                entityStart = position
            } else if entityStart >= 0 {
                if byte == UInt8(ascii: ";"), position - entityStart > 1 { return true }
                let ok = isLetter(byte) || isDigit(byte) || (byte == UInt8(ascii: "#") && position == entityStart + 1)
                if !ok || position - entityStart > 10 { entityStart = -1 }
            }
        }
        return false
    }

    /// Tags dropped (a block tag such as `<p>` or `<br>` separates words),
    /// character references and named entities decoded, whitespace squashed.
    /// Decoded text is never read as markup: `&lt;b&gt;` stays `<b>`.
    /// With `limit`, reading stops once that many bytes are written: the
    /// text's start, as long as the caller needs.
    static func plainText(_ html: String, atMost limit: Int = .max) -> String {
        var html = html
        return html.withUTF8 { input in
            // Every reference is at least as long as its UTF-8, and a tag
            // (3+ bytes) writes at most one space: the output fits the input.
            SquashingWriter.write(capacity: min(input.count, limit)) { writer in
                var index = 0
                var noCloseAfter = input.count  // no ">" at or after this index
                while index < input.count, !writer.isFull {
                    // Runs of ordinary bytes (most of the text) are copied whole.
                    let runStart = index
                    let runEnd = min(input.count, index + writer.room + 1)  // enough to fill what is left
                    while index < runEnd {
                        if isOrdinary(input[index]) {
                            index += 1
                        } else if input[index] == 0x20, index > runStart, index + 1 < input.count, isOrdinary(input[index + 1]) {
                            index += 2  // one space between words is already squashed
                        } else {
                            break
                        }
                    }
                    if index > runStart { writer.appendOrdinary(UnsafeBufferPointer(rebasing: input[runStart..<index])) }
                    guard index < input.count else { break }
                    let byte = input[index]
                    if byte == UInt8(ascii: "<"), index < noCloseAfter {
                        if let close = firstIndex(of: UInt8(ascii: ">"), in: input, from: index + 1) {
                            if isBlockTag(input, from: index + 1, to: close) { writer.appendSpace() }
                            index = close + 1
                            continue
                        }
                        noCloseAfter = index
                    } else if byte == UInt8(ascii: "&"), let (scalar, end) = reference(in: input, at: index) {
                        for unit in scalar.utf8 { writer.append(unit) }
                        index = end
                        continue
                    }
                    writer.append(byte)
                    index += 1
                }
            }
        }
    }

    /// Replaces character references and named entities, leaving everything
    /// else (markup and whitespace) as it is.
    static func decodeReferences(_ text: String) -> String {
        var text = text
        return text.withUTF8 { input in
            var output: [UInt8] = []
            output.reserveCapacity(input.count)
            var index = 0
            while index < input.count {
                if input[index] == UInt8(ascii: "&"), let (scalar, end) = reference(in: input, at: index) {
                    output.append(contentsOf: scalar.utf8)
                    index = end
                } else {
                    output.append(input[index])
                    index += 1
                }
            }
            return String(decoding: output, as: UTF8.self)
        }
    }

    // MARK: - References

    /// The character `&name;`, `&#123;` or `&#x7B;` at `start` stands for,
    /// and the index after its `;`; nil when it is not a known reference.
    static func reference(in input: UnsafeBufferPointer<UInt8>, at start: Int) -> (Unicode.Scalar, Int)? {
        let limit = min(start + 34, input.count)  // the longest HTML entity name is 32 letters
        guard let semicolon = firstIndex(of: UInt8(ascii: ";"), in: input, from: start + 1, before: limit),
              semicolon > start + 1 else { return nil }
        let name = UnsafeBufferPointer(rebasing: input[(start + 1)..<semicolon])
        let scalar: Unicode.Scalar?
        if name[0] == UInt8(ascii: "#") {
            let hex = name.count > 1 && name[1] | 0x20 == UInt8(ascii: "x")
            scalar = number(UnsafeBufferPointer(rebasing: name[(hex ? 2 : 1)...]), radix: hex ? 16 : 10).flatMap(Unicode.Scalar.init)
        } else {
            scalar = named(name)
        }
        return scalar.map { ($0, semicolon + 1) }
    }

    private static func number(_ digits: UnsafeBufferPointer<UInt8>, radix: UInt32) -> UInt32? {
        guard !digits.isEmpty, digits.count <= 8 else { return nil }
        var value: UInt32 = 0
        for byte in digits {
            let digit: UInt32
            if isDigit(byte) { digit = UInt32(byte - 0x30) }
            else if radix == 16, (byte | 0x20) >= UInt8(ascii: "a"), (byte | 0x20) <= UInt8(ascii: "f") { digit = UInt32((byte | 0x20) - 0x57) }
            else { return nil }
            value = value * radix + digit
        }
        return value
    }

    /// The common names without a lookup; the rest from libxml2's HTML table.
    private static func named(_ name: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        guard name.allSatisfy({ isLetter($0) || isDigit($0) }) else { return nil }
        switch (name.count, name[0]) {
        case (3, UInt8(ascii: "a")) where name[1] == UInt8(ascii: "m") && name[2] == UInt8(ascii: "p"): return "&"
        case (2, UInt8(ascii: "l")) where name[1] == UInt8(ascii: "t"): return "<"
        case (2, UInt8(ascii: "g")) where name[1] == UInt8(ascii: "t"): return ">"
        default: break
        }
        var key = [UInt8](name)
        key.append(0)
        guard let entry = htmlEntityLookup(key) else { return nil }
        return Unicode.Scalar(entry.pointee.value)
    }

    // MARK: - Bytes

    /// Not whitespace, not the start of a tag, a reference or a no-break space.
    @inline(__always)
    private static func isOrdinary(_ byte: UInt8) -> Bool {
        byte > UInt8(ascii: "<") ? byte != 0xC2 : byte > 0x20 && byte != UInt8(ascii: "<") && byte != UInt8(ascii: "&")
    }

    /// Whether the tag between `start` and `end` (after its `<`) is one
    /// that separates words: br, p, div, li, ul, ol, h1–h6, tr, td, th, hr,
    /// pre, table, blockquote, in any case, opening or closing. A switch on
    /// the name's length and letters (a list of names searched per tag was
    /// a tenth of `pods inspect --json`'s time on a feed of HTML notes).
    private static func isBlockTag(_ input: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var nameStart = start
        while nameStart < end, input[nameStart] == UInt8(ascii: "/") { nameStart += 1 }
        var nameEnd = nameStart
        while nameEnd < end, nameEnd - nameStart <= 10, isLetter(input[nameEnd]) || isDigit(input[nameEnd]) { nameEnd += 1 }
        let name = UnsafeBufferPointer(rebasing: input[nameStart..<nameEnd])
        func lower(_ index: Int) -> UInt8 { name[index] | 0x20 }
        func equals(_ word: StaticString) -> Bool {
            word.withUTF8Buffer { letters in zip(name, letters).allSatisfy { $0 | 0x20 == $1 } }
        }
        switch name.count {
        case 1: return lower(0) == UInt8(ascii: "p")
        case 2:
            switch (lower(0), lower(1)) {
            case (UInt8(ascii: "b"), UInt8(ascii: "r")), (UInt8(ascii: "l"), UInt8(ascii: "i")), (UInt8(ascii: "u"), UInt8(ascii: "l")),
                 (UInt8(ascii: "o"), UInt8(ascii: "l")), (UInt8(ascii: "t"), UInt8(ascii: "r")), (UInt8(ascii: "t"), UInt8(ascii: "d")),
                 (UInt8(ascii: "t"), UInt8(ascii: "h")), (UInt8(ascii: "h"), UInt8(ascii: "r")):
                return true
            case (UInt8(ascii: "h"), let level): return level >= UInt8(ascii: "1") && level <= UInt8(ascii: "6")
            default: return false
            }
        case 3: return equals("div") || equals("pre")
        case 5: return equals("table")
        case 10: return equals("blockquote")
        default: return false
        }
    }

    private static func firstIndex(of byte: UInt8, in input: UnsafeBufferPointer<UInt8>, from start: Int, before end: Int? = nil) -> Int? {
        let end = end ?? input.count
        guard start < end, let base = input.baseAddress, let found = memchr(base + start, Int32(byte), end - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}

/// Text conversions the library shares with the parser.
public enum FeedText {
    /// HTML as the parser reads it into an episode's plain-text description.
    public static func plainText(fromHTML html: String) -> String { HTMLText.plainText(html) }

    /// Whether `plain` is `html` read as plain text; reads only as much of
    /// `html` as it takes to tell (a short summary beside long show notes
    /// is told apart at once).
    public static func isPlainText(_ plain: String, of html: String) -> Bool {
        HTMLText.plainText(html, atMost: plain.utf8.count + 1) == plain
    }
}
