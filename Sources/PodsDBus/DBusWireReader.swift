/// Reads a message body in the D-Bus wire format, value by value, straight
/// from its bytes: a client that turns a 250 KiB page of items into JSON
/// reads each string where it lies instead of building a `DBusValue` tree
/// through libdbus' iterators first.
///
/// The bytes come from a message libdbus received, and so validated, or
/// from a stream (`DBusBodyStream`), which nothing checked: every read is
/// bounds-checked (a short or odd body is an error, never a trap) and text
/// that is not UTF-8 is repaired.
public struct DBusWireReader {
    private let bytes: [UInt8]
    private let bigEndian: Bool
    /// Where the next read starts (from the start of the body).
    public private(set) var offset: Int
    /// Values read by `value(of:)` so far, against `valueBudget`.
    private var valuesRead = 0
    private let valueBudget: Int

    /// A reader of `bytes` (a body, which starts 8-aligned in its message).
    public init(body bytes: [UInt8], bigEndian: Bool = false, valueBudget: Int = 1 << 20) {
        self.bytes = bytes
        self.bigEndian = bigEndian
        self.offset = 0
        self.valueBudget = valueBudget
    }

    public var isAtEnd: Bool { offset >= bytes.count }

    // MARK: - Basic values

    public mutating func byte() throws(DBusError) -> UInt8 {
        guard offset < bytes.count else { throw Self.short }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func bool() throws(DBusError) -> Bool { try uint32() != 0 }

    public mutating func int16() throws(DBusError) -> Int16 { Int16(bitPattern: UInt16(truncatingIfNeeded: try fixed(2))) }
    public mutating func uint16() throws(DBusError) -> UInt16 { UInt16(truncatingIfNeeded: try fixed(2)) }
    public mutating func int32() throws(DBusError) -> Int32 { Int32(bitPattern: UInt32(truncatingIfNeeded: try fixed(4))) }
    public mutating func uint32() throws(DBusError) -> UInt32 { UInt32(truncatingIfNeeded: try fixed(4)) }
    public mutating func int64() throws(DBusError) -> Int64 { Int64(bitPattern: try fixed(8)) }
    public mutating func uint64() throws(DBusError) -> UInt64 { try fixed(8) }
    public mutating func double() throws(DBusError) -> Double { Double(bitPattern: try fixed(8)) }

    /// A string or object path's bytes (UTF-8, without the closing NUL),
    /// handed to `body` where they lie.
    public mutating func withString<T>(_ body: (UnsafeBufferPointer<UInt8>) throws(DBusError) -> T) throws(DBusError) -> T {
        let length = Int(try uint32())
        return try text(length: length, body)
    }

    public mutating func string() throws(DBusError) -> String {
        try withString { String(decoding: $0, as: UTF8.self) }
    }

    /// A signature's bytes (one length byte, no alignment).
    public mutating func withSignature<T>(_ body: (UnsafeBufferPointer<UInt8>) throws(DBusError) -> T) throws(DBusError) -> T {
        let length = Int(try byte())
        return try text(length: length, body)
    }

    // MARK: - Containers

    /// Reads an array's length and the padding before its first element;
    /// the offset where the array ends.
    public mutating func arrayEnd(elementAlignment: Int) throws(DBusError) -> Int {
        let length = Int(try uint32())
        try align(elementAlignment)
        guard length <= bytes.count - offset else { throw Self.short }
        return offset + length
    }

    /// Moves to `target`: the end of an array read in part, or back to
    /// where a value began, to read it again.
    public mutating func move(to target: Int) throws(DBusError) {
        guard target >= 0, target <= bytes.count else { throw Self.short }
        offset = target
    }

    /// Skips the padding before a value aligned to `boundary` (1, 2, 4 or 8).
    public mutating func align(_ boundary: Int) throws(DBusError) {
        let aligned = (offset + boundary - 1) & ~(boundary - 1)
        guard aligned <= bytes.count else { throw Self.short }
        offset = aligned
    }

    // MARK: - Any value

    /// One value of `type`, as a `DBusValue` (for what a caller does not
    /// read by hand). At most `valueBudget` values for the reader's life.
    public mutating func value(of type: DBusType) throws(DBusError) -> DBusValue {
        valuesRead += 1
        guard valuesRead <= valueBudget else { throw DBusError.invalidArgs("a message holds more than \(valueBudget) values") }
        switch type {
        case .byte: return .byte(try byte())
        case .bool: return .bool(try bool())
        case .int16: return .int16(try int16())
        case .uint16: return .uint16(try uint16())
        case .int32: return .int32(try int32())
        case .uint32: return .uint32(try uint32())
        case .int64: return .int64(try int64())
        case .uint64: return .uint64(try uint64())
        case .double: return .double(try double())
        case .string: return .string(try string())
        case .objectPath:
            let text = try string()
            guard let path = DBusObjectPath(text) else { throw DBusError.invalidArgs("'\(text)' is not an object path") }
            return .objectPath(path)
        case .signature: return .signature(try withSignature { String(decoding: $0, as: UTF8.self) })
        case .unixFD: throw DBusError.notSupported("Unix file descriptors are not read")
        case .variant:
            let signature = try withSignature { String(decoding: $0, as: UTF8.self) }
            return .variant(try value(of: try DBusType.parseSingle(signature)))
        case .array(let element):
            let end = try arrayEnd(elementAlignment: element.alignment)
            var items: [DBusValue] = []
            while offset < end { items.append(try value(of: element)) }
            return .array(element, items)
        case .dictionary(let key, let valueType):
            let end = try arrayEnd(elementAlignment: 8)
            var entries: [DBusDictionaryEntry] = []
            while offset < end {
                try align(8)
                entries.append(DBusDictionaryEntry(try value(of: key), try value(of: valueType)))
            }
            return .dictionary(key: key, value: valueType, entries)
        case .structure(let fields):
            try align(8)
            var values: [DBusValue] = []
            for field in fields { values.append(try value(of: field)) }
            return .structure(values)
        }
    }

    // MARK: - Bytes

    private static let short = DBusError.invalidArgs("a message body ends before its values do")

    /// An unsigned number of `size` (2, 4 or 8) bytes, after its alignment.
    private mutating func fixed(_ size: Int) throws(DBusError) -> UInt64 {
        try align(size)
        guard size <= bytes.count - offset else { throw Self.short }
        let at = offset
        offset += size
        return bytes.withUnsafeBytes { raw in
            switch size {
            case 2:
                let value = raw.loadUnaligned(fromByteOffset: at, as: UInt16.self)
                return UInt64(bigEndian ? UInt16(bigEndian: value) : UInt16(littleEndian: value))
            case 4:
                let value = raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)
                return UInt64(bigEndian ? UInt32(bigEndian: value) : UInt32(littleEndian: value))
            default:
                let value = raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                return bigEndian ? UInt64(bigEndian: value) : UInt64(littleEndian: value)
            }
        }
    }

    /// `length` bytes and the NUL after them.
    private mutating func text<T>(length: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(DBusError) -> T) throws(DBusError) -> T {
        guard length < bytes.count - offset else { throw Self.short }
        let start = offset
        offset += length + 1
        return try bytes.withUnsafeBufferPointer { (all) throws(DBusError) -> T in
            try body(UnsafeBufferPointer(rebasing: all[start..<start + length]))
        }
    }
}

extension DBusType {
    /// The boundary a value of this type starts on in the wire format.
    public var alignment: Int {
        switch self {
        case .byte, .signature, .variant: 1
        case .int16, .uint16: 2
        case .bool, .int32, .uint32, .string, .objectPath, .unixFD, .array, .dictionary: 4
        case .int64, .uint64, .double, .structure: 8
        }
    }
}
