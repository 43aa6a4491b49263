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
        guard let first = text.utf8.first, let last = text.utf8.last, isSpace(first) || isSpace(last) else { return text }
        var utf8 = Substring(text).utf8
        while let first = utf8.first, isSpace(first) { utf8 = utf8.dropFirst() }
        while let last = utf8.last, isSpace(last) { utf8 = utf8.dropLast() }
        return String(Substring(utf8))
    }

    /// Runs of whitespace (ASCII and U+00A0) become one space, ends trimmed.
    static func squash(_ text: String) -> String {
        var text = text
        return text.withUTF8 { input in
            SquashingWriter.write(capacity: input.count) { writer in
                for byte in input { writer.append(byte) }
            }
        }
    }
}

/// Writes UTF-8 into a new String, squashing whitespace as it goes: runs of
/// ASCII whitespace and U+00A0 become one space, leading and trailing ones
/// are dropped. Never writes more bytes than it is given.
struct SquashingWriter: ~Copyable {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private var count = 0
    private var pendingSpace = false
    /// The last byte was 0xC2, held back in case 0xA0 (no-break space) follows.
    private var heldC2 = false

    /// A String of at most `capacity` bytes, written by `body`.
    static func write(capacity: Int, _ body: (inout SquashingWriter) -> Void) -> String {
        String(unsafeUninitializedCapacity: max(capacity, 1)) { buffer in
            var writer = SquashingWriter(buffer: buffer)
            body(&writer)
            return writer.finish()
        }
    }

    private init(buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    /// Whether the capacity is used up (what is written after is dropped).
    var isFull: Bool { count >= buffer.count }

    /// Bytes left before the capacity is used up.
    var room: Int { buffer.count - count }

    /// A space that separates words (a block tag): squashed like any other.
    mutating func appendSpace() { append(0x20) }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if heldC2 {
            heldC2 = false
            if byte == 0xA0 {
                pendingSpace = true
                return
            }
            put(0xC2)
        }
        if TextBytes.isSpace(byte) {
            pendingSpace = true
        } else if byte == 0xC2 {
            heldC2 = true
        } else {
            put(byte)
        }
    }

    /// Bytes with no 0xC2 and no whitespace but single spaces between
    /// other bytes (nothing to squash), copied whole.
    mutating func appendOrdinary(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count > 1 else { return bytes.first.map { append($0) } ?? () }
        append(bytes[0])  // may complete a held-back no-break space
        put(bytes[1])  // writes any pending space
        let rest = min(bytes.count - 2, buffer.count - count)
        guard rest > 0, let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
        (target + count).update(from: source + 2, count: rest)
        count += rest
    }

    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        if pendingSpace {
            pendingSpace = false
            if count > 0 { store(0x20) }
        }
        store(byte)
    }

    /// Callers never give more bytes than the capacity they asked for, and
    /// squashing only removes bytes; the bound check keeps it safe if not.
    @inline(__always)
    private mutating func store(_ byte: UInt8) {
        guard count < buffer.count else { return }
        buffer[count] = byte
        count += 1
    }

    consuming func finish() -> Int {
        if heldC2 { put(0xC2) }
        return count
    }
}
