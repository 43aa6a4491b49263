/// Text helpers that work on UTF-8 bytes: feeds are large, and Character-level
/// String processing (grapheme breaking, Foundation's UTF-16 trimming) costs
/// more than parsing the XML.
enum TextBytes {
    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D || byte == 0x0C
    }

    /// Without leading and trailing whitespace (ASCII and no-break space).
    static func trim(_ text: String) -> String {
        var utf8 = Substring(text).utf8
        while let first = utf8.first, isSpace(first) { utf8 = utf8.dropFirst() }
        while let last = utf8.last, isSpace(last) { utf8 = utf8.dropLast() }
        return String(Substring(utf8))
    }

    /// Runs of whitespace (ASCII and U+00A0) become one space, ends trimmed.
    static func squash(_ text: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        var previousWasC2 = false
        for byte in text.utf8 {
            if previousWasC2 {
                previousWasC2 = false
                if byte == 0xA0 {
                    pendingSpace = true
                    continue
                }
                flush(&output, &pendingSpace)
                output.append(0xC2)
            }
            if isSpace(byte) {
                pendingSpace = true
            } else if byte == 0xC2 {
                previousWasC2 = true
            } else {
                flush(&output, &pendingSpace)
                output.append(byte)
            }
        }
        if previousWasC2 {
            flush(&output, &pendingSpace)
            output.append(0xC2)
        }
        return String(decoding: output, as: UTF8.self)
    }

    @inline(__always)
    private static func flush(_ output: inout [UInt8], _ pendingSpace: inout Bool) {
        if pendingSpace, !output.isEmpty { output.append(0x20) }
        pendingSpace = false
    }
}
