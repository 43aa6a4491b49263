/// Writes JSON text into a byte buffer, value by value, for output that
/// streams (a 50,000-episode listing, a 10,000-episode feed): no tree is
/// built, keys come in the order written, and `null` is written out.
/// Strings are escaped as RFC 8259 asks and no more (`/` and non-ASCII stay).
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Where full buffers go (nil: everything stays in `bytes`).
    private let sink: (@Sendable ([UInt8]) -> Void)?
    private let capacity: Int

    public init(capacity: Int = 1 << 16) {
        self.capacity = capacity
        self.sink = nil
        bytes.reserveCapacity(capacity)
    }

    /// A writer that hands its bytes to `sink` whenever an array element
    /// leaves more than `capacity` of them, so a long document streams out
    /// in bounded memory; `flush()` hands over the rest.
    public init(capacity: Int = 1 << 16, sink: @escaping @Sendable ([UInt8]) -> Void) {
        self.capacity = capacity
        self.sink = sink
        bytes.reserveCapacity(capacity)
    }

    /// Hands what is buffered to the sink.
    public mutating func flush() {
        guard let sink, !bytes.isEmpty else { return }
        sink(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// Empties the buffer (after its bytes were written out), keeping its storage.
    public mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// Text that is already JSON (punctuation, literals).
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    public mutating func null() { raw("null") }

    public mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { string(utf8: $0) }
    }

    /// A string from its UTF-8 bytes (valid UTF-8, as a D-Bus string is).
    public mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        while true {
            let index = ByteScan.firstControlOrStop(in: utf8, from: runStart, stops: (0x22, 0x5C, 0x5C))  // " and \
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            guard index < utf8.count else { break }
            escape(utf8[index])
            runStart = index + 1
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Drops what was written after the first `count` bytes (an object
    /// begun and then written another way).
    public mutating func truncate(to count: Int) {
        if count < bytes.count { bytes.removeSubrange(count...) }
    }

    public mutating func string(_ text: String?) {
        if let text { string(text) } else { null() }
    }

    public mutating func integer(_ number: Int64) {
        bytes.append(contentsOf: String(number).utf8)
    }

    public mutating func integer(_ number: Int?) {
        if let number { integer(Int64(number)) } else { null() }
    }

    /// Whole numbers without a fraction (`36`, not `36.0`); `null` for NaN and infinities.
    public mutating func number(_ number: Double?) {
        guard let number, number.isFinite else { return null() }
        if number == number.rounded(), abs(number) < 1e15 { return integer(Int64(number)) }
        bytes.append(contentsOf: String(number).utf8)
    }

    public mutating func bool(_ flag: Bool?) {
        guard let flag else { return null() }
        if flag { raw("true") } else { raw("false") }
    }

    /// `"key":`, after a comma unless it is the object's first key.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        raw("\":")
    }

    /// `"key":` for a name in UTF-8 that needs no escaping (a schema's key).
    public mutating func key(plain name: [UInt8]) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: name)
        raw("\":")
    }

    /// `"key":` for a name known only at run time.
    public mutating func key(_ name: String) {
        separate()
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// A comma, unless an object or array has just begun.
    private mutating func separate() {
        if let last = bytes.last, last != UInt8(ascii: "{"), last != UInt8(ascii: "[") { bytes.append(UInt8(ascii: ",")) }
    }

    /// `[…]` with a comma between the elements `element` writes.
    public mutating func array<C: Collection>(_ elements: C, _ element: (inout JSONWriter, C.Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for value in elements {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            element(&self, value)
            if sink != nil, bytes.count >= capacity { flush() }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func escape(_ byte: UInt8) {
        let hex: StaticString = "0123456789abcdef"
        switch byte {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case 0x0A: raw("\\n")
        case 0x0D: raw("\\r")
        case 0x09: raw("\\t")
        default:
            raw("\\u00")
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 15)])
            }
        }
    }
}
