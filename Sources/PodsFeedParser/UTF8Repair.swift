/// Streams a document's bytes through unchanged when they are valid UTF-8;
/// bytes that are not (a feed saved as windows-1252 but declared UTF-8) are
/// read as windows-1252, so one bad byte never loses the feed.
///
/// Only documents that are UTF-8 by their start are touched: a UTF-16 byte
/// order mark or an `encoding="…"` other than UTF-8 passes everything
/// through for libxml2 to convert.
struct UTF8Repair {
    private var decided: Bool?
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
        if start.starts(with: [0xFF, 0xFE]) || start.starts(with: [0xFE, 0xFF]) {
            decided = false
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

    private mutating func repairIfNeeded(_ bytes: [UInt8]) -> [UInt8] {
        guard decided == true else { return bytes }
        if carry.isEmpty, let validEnd = Self.validPrefixEnd(bytes), validEnd == bytes.count {
            return bytes  // the common case: valid UTF-8 passes through untouched
        }
        let input = carry + bytes
        carry = []
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte < 0x80 {
                out.append(byte)
                index += 1
                continue
            }
            let length = byte >= 0xF0 && byte <= 0xF4 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC2 && byte <= 0xDF ? 2 : 0
            if length == 0 {
                Self.appendWindows1252(byte, to: &out)
                index += 1
                continue
            }
            if index + length > input.count {  // maybe completed by the next chunk
                if input[(index + 1)...].allSatisfy({ $0 & 0xC0 == 0x80 }) {
                    carry = Array(input[index...])
                    break
                }
            }
            let end = min(index + length, input.count)
            let sequence = input[index..<end]
            if sequence.count == length, String(validatingUTF8: sequence.map { CChar(bitPattern: $0) } + [0]) != nil {
                out.append(contentsOf: sequence)
                index += length
            } else {
                Self.appendWindows1252(byte, to: &out)
                index += 1
            }
        }
        return out
    }

    /// The end of the valid UTF-8 prefix, if everything is valid or only an
    /// incomplete sequence at the very end is missing its continuation.
    static func validPrefixEnd(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            var index = 0
            let count = buffer.count
            while index < count {
                // Eight ASCII bytes at a time.
                if index + 8 <= count,
                   UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {  // safe: index + 8 <= count
                    index += 8
                    continue
                }
                let byte = buffer[index]
                if byte < 0x80 { index += 1; continue }
                let length = byte >= 0xF0 && byte <= 0xF4 ? 4 : byte >= 0xE0 && byte <= 0xEF ? 3 : byte >= 0xC2 && byte <= 0xDF ? 2 : 0
                guard length > 0, index + length <= count else { return nil }
                for offset in 1..<length where buffer[index + offset] & 0xC0 != 0x80 { return nil }
                if length == 3 {
                    let second = buffer[index + 1]
                    if byte == 0xE0 && second < 0xA0 || byte == 0xED && second > 0x9F { return nil }
                } else if length == 4 {
                    let second = buffer[index + 1]
                    if byte == 0xF0 && second < 0x90 || byte == 0xF4 && second > 0x8F { return nil }
                }
                index += length
            }
            return index
        }
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
