/// Bytes of a media file, read by offset: a local file, a range cache
/// (which fetches only the bytes asked for), or memory in tests.
public protocol ChapterByteSource {
    /// The file's length in bytes.
    var length: Int64 { get }
    /// The bytes in `range` (fewer only at the end of the file).
    func bytes(in range: Range<Int64>) throws(ChapterError) -> [UInt8]
}

/// Bytes in memory.
public struct InMemoryBytes: ChapterByteSource {
    public let data: [UInt8]

    public init(_ data: [UInt8]) { self.data = data }

    public var length: Int64 { Int64(data.count) }

    public func bytes(in range: Range<Int64>) throws(ChapterError) -> [UInt8] {
        let lower = Int(clamping: max(0, min(range.lowerBound, length)))
        let upper = Int(clamping: max(Int64(lower), min(range.upperBound, length)))
        return Array(data[lower..<upper])
    }
}

/// Reads numbers and strings from a byte array, never past its end: every
/// read returns nil (or throws) instead of trapping on a short or hostile file.
struct ByteCursor {
    let bytes: [UInt8]
    private(set) var offset: Int
    let end: Int

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.offset = max(0, min(start, bytes.count))
        self.end = max(self.offset, min(end ?? bytes.count, bytes.count))
    }

    var remaining: Int { end - offset }
    var isAtEnd: Bool { offset >= end }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        offset += count
        return true
    }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func u8() -> UInt8? { take(1)?.first }

    mutating func bigEndian(_ width: Int) -> UInt64? {
        guard let slice = take(width) else { return nil }
        return slice.reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func littleEndian(_ width: Int) -> UInt64? {
        guard let slice = take(width) else { return nil }
        return slice.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func u16() -> UInt16? { bigEndian(2).map { UInt16($0) } }
    mutating func u32() -> UInt32? { bigEndian(4).map { UInt32($0) } }
    mutating func u64() -> UInt64? { bigEndian(8) }
    mutating func u32LE() -> UInt32? { littleEndian(4).map { UInt32($0) } }

    /// Bytes up to a NUL of `width` bytes (1, or 2 aligned for UTF-16), which is skipped.
    mutating func terminated(width: Int = 1) -> ArraySlice<UInt8> {
        var index = offset
        while index + width <= end {
            if bytes[index..<index + width].allSatisfy({ $0 == 0 }) {
                defer { offset = index + width }
                return bytes[offset..<index]
            }
            index += width
        }
        defer { offset = end }
        return bytes[offset..<end]
    }

    mutating func rest() -> ArraySlice<UInt8> {
        defer { offset = end }
        return bytes[offset..<end]
    }
}

extension ChapterByteSource {
    /// Reads `count` bytes from `offset`, failing when fewer are there.
    func exactly(_ count: Int, at offset: Int64, what: String) throws(ChapterError) -> [UInt8] {
        let end = try FileOffset.advance(offset, by: Int64(count), what: what)  // (negative ones refused there)
        let bytes = try bytes(in: offset..<end)
        guard bytes.count == count else { throw ChapterError("the file ends inside its \(what)") }
        return bytes
    }
}

/// The one way the readers move through a file by a size read from it:
/// every sum of an offset and a size from outside bytes is checked here, so
/// a size near `Int64.max` (or a file length that large, from a server's
/// `Content-Range`) is a malformed file, never a trap.
enum FileOffset {
    /// `offset + size`, or an error naming `what` when it does not fit in an `Int64`
    /// (or either is negative).
    static func advance(_ offset: Int64, by size: Int64, what: String) throws(ChapterError) -> Int64 {
        guard offset >= 0, size >= 0 else { throw ChapterError("malformed file: its \(what) has a negative size or place") }
        let (end, overflow) = offset.addingReportingOverflow(size)
        guard !overflow else { throw ChapterError("malformed file: its \(what) claims \(size) bytes at byte \(offset)") }
        return end
    }

    /// Whether `count` more bytes fit between `offset` and `length`, without adding.
    static func fits(_ count: Int64, at offset: Int64, in length: Int64) -> Bool {
        offset >= 0 && count >= 0 && offset <= length && count <= length - offset
    }
}

/// Text from bytes that should be UTF-8 but may not be.
func utf8Text<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
    String(decoding: Array(bytes), as: UTF8.self)
}
