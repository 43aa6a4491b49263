/// Streams a document's bytes through unchanged when they are valid UTF-8;
/// bytes that are not (a feed saved as windows-1252 but declared UTF-8) are
/// read as windows-1252, so one bad byte never loses the feed.
///
/// Only documents that are UTF-8 by their start are touched: a UTF-16 byte
/// order mark or an `encoding="…"` other than UTF-8 passes everything
/// through for libxml2 to convert.
struct UTF8Repair {
    private var decided: Bool?
    /// False for UTF-16 and UTF-32 documents, whose `&` and `<` are not
    /// single bytes (known once the first bytes came out).
    private(set) var isASCIICompatible = true
    private var head: [UInt8] = []
    /// An incomplete sequence at the end of the last chunk.
    private var carry: [UInt8] = []

    mutating func process(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if decided == nil {
            head.append(contentsOf: bytes)
            guard head.count >= 256 else { return [] }
            decide()
            let pending = head
            head = []
            return repairIfNeeded(pending)
        }
        return repairIfNeeded(Array(bytes))
    }

    mutating func finish() -> [UInt8] {
        var out: [UInt8] = []
        if decided == nil {
            decide()
            out = repairIfNeeded(head)
            head = []
        }
        if decided == true, !carry.isEmpty {
            for byte in carry { Self.appendWindows1252(byte, to: &out) }
            carry = []
        }
        return out
    }

    private mutating func decide() {
        let start = head.prefix(256)
        // A byte order mark, or `<` as a 16- or 32-bit unit without one.
        if start.starts(with: [0xFF, 0xFE]) || start.starts(with: [0xFE, 0xFF]) || start.starts(with: [0, 0, 0xFE, 0xFF])
            || start.starts(with: [0x3C, 0]) || start.starts(with: [0, 0x3C]) || start.starts(with: [0, 0, 0, 0x3C]) {
            decided = false
            isASCIICompatible = false
            return
        }
        let declaration = String(decoding: start.prefix { $0 != UInt8(ascii: ">") }, as: UTF8.self).lowercased()
        if let range = declaration.range(of: "encoding=") {
            let value = declaration[range.upperBound...].dropFirst().prefix { $0 != "\"" && $0 != "'" }
            decided = value == "utf-8" || value == "utf8"
        } else {
            decided = true
        }
    }

    /// Passes valid UTF-8 through (uncopied when the whole chunk is valid),
    /// reads invalid bytes as windows-1252, and keeps an incomplete
    /// sequence at the end for the next chunk.
    private mutating func repairIfNeeded(_ bytes: [UInt8]) -> [UInt8] {
        guard decided == true else { return bytes }
        let input = carry.isEmpty ? bytes : carry + bytes
        var tail: ArraySlice<UInt8> = []
        var out: [UInt8] = []
        var copiedUpTo = 0
        input.withUnsafeBufferPointer { buffer in
            var index = 0
            guard let start = buffer.baseAddress else { return }  // empty
            let base = UnsafeRawPointer(start)
            while index < buffer.count {
                // Thirty-two ASCII bytes at a time, then eight.
                if index + 32 <= buffer.count {
                    let words = (base + index).loadUnaligned(as: UInt64.self) | (base + index + 8).loadUnaligned(as: UInt64.self)
                        | (base + index + 16).loadUnaligned(as: UInt64.self) | (base + index + 24).loadUnaligned(as: UInt64.self)
                    if words & 0x8080_8080_8080_8080 == 0 {
                        index += 32
                        continue
                    }
                }
                if index + 8 <= buffer.count, (base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                    continue
                }
                if buffer[index] < 0x80 {
                    index += 1
                    continue
                }
                switch Self.sequence(in: buffer, at: index) {
                case .valid(let length):
                    index += length
                case .incomplete:
                    tail = input[index...]
                    out.append(contentsOf: buffer[copiedUpTo..<index])
                    copiedUpTo = buffer.count
                    return
                case .invalid:
                    out.append(contentsOf: buffer[copiedUpTo..<index])
                    Self.appendWindows1252(buffer[index], to: &out)
                    index += 1
                    copiedUpTo = index
                }
            }
        }
        carry = Array(tail)
        if copiedUpTo == 0 { return input }  // nothing repaired, nothing held back
        out.append(contentsOf: input[min(copiedUpTo, input.count)...])
        return out
    }

    private enum SequenceCheck {
        case valid(Int)
        /// Well-formed so far, cut off by the end of the buffer.
        case incomplete
        case invalid
    }

    /// Checks the multi-byte sequence starting at `index` (RFC 3629: no
    /// overlong forms, no surrogates, nothing above U+10FFFF).
    private static func sequence(in buffer: UnsafeBufferPointer<UInt8>, at index: Int) -> SequenceCheck {
        let lead = buffer[index]
        let length: Int
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return .invalid
        }
        for offset in 1..<length {
            guard index + offset < buffer.count else { return .incomplete }
            let next = buffer[index + offset]
            guard next & 0xC0 == 0x80 else { return .invalid }
            if offset == 1 {
                if lead == 0xE0 && next < 0xA0 || lead == 0xED && next > 0x9F
                    || lead == 0xF0 && next < 0x90 || lead == 0xF4 && next > 0x8F { return .invalid }
            }
        }
        return .valid(length)
    }

    /// windows-1252's 0x80–0x9F block; elsewhere it matches Latin-1.
    private static let high: [UInt32] = [
        0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
        0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
    ]

    private static func appendWindows1252(_ byte: UInt8, to out: inout [UInt8]) {
        let code = byte >= 0x80 && byte <= 0x9F ? high[Int(byte - 0x80)] : UInt32(byte)
        guard let scalar = Unicode.Scalar(code) else { return }
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
    }
}
