/// Writes a message body in the D-Bus wire format (little-endian), value
/// by value, for a large reply built straight from its rows: a page of
/// 400 library items costs a few thousand appends to one buffer instead of
/// a `DBusValue` tree and tens of thousands of libdbus iterator calls.
///
/// The caller writes values in the order of the signature it declares in
/// `body(signature:)`; libdbus checks the whole message (signature, lengths,
/// alignment, UTF-8) when it is made, so a mistake is an error reply, never
/// a malformed message on the bus.
public struct DBusWireWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 1 << 16) { bytes.reserveCapacity(capacity) }

    /// Bytes written so far.
    public var count: Int { bytes.count }

    // MARK: - Basic values

    public mutating func bool(_ flag: Bool) { uint32(flag ? 1 : 0) }
    public mutating func int32(_ number: Int32) { uint32(UInt32(bitPattern: number)) }

    public mutating func uint32(_ number: UInt32) {
        align(4)
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func int64(_ number: Int64) {
        align(8)
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func double(_ number: Double) {
        align(8)
        withUnsafeBytes(of: number.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A string; cut at an embedded NUL, which D-Bus strings cannot hold
    /// (as libdbus cuts a C string).
    public mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            let length = utf8.firstIndex(of: 0) ?? utf8.count
            uint32(UInt32(length))
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[0..<length]))
            bytes.append(0)
        }
    }

    public mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// Bytes already in the wire format (a body after its header).
    public mutating func raw(_ data: [UInt8]) { bytes.append(contentsOf: data) }

    /// A signature known only at run time (ASCII, at most 255 bytes).
    public mutating func signature(text: String) {
        let utf8 = Array(text.utf8.prefix(255))
        bytes.append(UInt8(utf8.count))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }

    /// A signature (a variant's), as ASCII text.
    public mutating func signature(_ text: StaticString) {
        bytes.append(UInt8(text.utf8CodeUnitCount))
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(0)
    }

    // MARK: - Containers

    /// Where an array begun with `beginArray` keeps its length and elements.
    public struct ArrayMark: Sendable {
        fileprivate let lengthAt: Int
        fileprivate let elementsAt: Int
    }

    /// Starts an array whose elements start on `elementAlignment` (8 for
    /// dictionary entries and structs, 4 for arrays and strings).
    public mutating func beginArray(elementAlignment: Int) -> ArrayMark {
        uint32(0)
        let lengthAt = bytes.count - 4
        align(elementAlignment)
        return ArrayMark(lengthAt: lengthAt, elementsAt: bytes.count)
    }

    /// Ends the array: its length is what was written since `beginArray`.
    public mutating func endArray(_ mark: ArrayMark) {
        let length = UInt32(bytes.count - mark.elementsAt).littleEndian
        withUnsafeBytes(of: length) { raw in
            for index in 0..<4 { bytes[mark.lengthAt + index] = raw[index] }
        }
    }

    /// A dictionary entry or struct starts here.
    public mutating func beginStruct() { align(8) }

    /// Drops what was written after the first `count` bytes (an item that
    /// did not fit its page).
    public mutating func truncate(to count: Int) {
        if count < bytes.count { bytes.removeSubrange(count...) }
    }

    /// Zero padding up to a multiple of `boundary` (from the body's start,
    /// which is 8-aligned in the message).
    public mutating func align(_ boundary: Int) {
        // D-Bus aligns to 1, 2, 4 or 8 bytes: a mask, not two divisions (and
        // a byte or few appended, not a generic sequence); it was the most
        // time spent in any one function of a listing.
        assert(boundary > 0 && boundary & (boundary - 1) == 0, "alignment \(boundary) is not a power of two")
        var padding = (0 &- bytes.count) & (boundary &- 1)
        while padding > 0 {
            bytes.append(0)
            padding -= 1
        }
    }

    /// The finished body, declared to hold `signature`.
    public func body(signature: String) -> DBusWireBody {
        DBusWireBody(signature: signature, bytes: bytes)
    }
}

/// A reply body written with `DBusWireWriter`, for a method handler that
/// answers with it (`DBusMethod.bodyHandler`).
public struct DBusWireBody: Sendable {
    public let signature: String
    public let bytes: [UInt8]
}
