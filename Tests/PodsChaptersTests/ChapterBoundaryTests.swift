import Foundation
@testable import PodsChapters
import Testing

/// Every reader of media chapters at the boundaries of each size it reads
/// from the file: 0, 1, a header less one, `UInt32.max`, `Int64.max − 8`
/// through `Int64.max`, a size past the file and one that ends exactly at its
/// end. A size is anyone's number: each one is read or refused, never a trap.
@Suite(.timeLimit(.minutes(10))) struct ChapterBoundaryTests {
    static let int64Edges: [UInt64] = (0...8).map { UInt64(Int64.max) - $0 } + [UInt64(Int64.max) + 1, UInt64.max]

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    static func box(_ type: String, size32: UInt32, large: UInt64? = nil, payload: [UInt8] = []) -> [UInt8] {
        bigEndian(UInt64(size32), width: 4) + Array(type.utf8) + (large.map { bigEndian($0, width: 8) } ?? []) + payload
    }

    /// The 16 bytes that killed podsd at `pods show`: one top-level box whose
    /// end is `Int64.max` (REVIEW-3, N1).
    @Test func aTopLevelBoxEndingAtInt64MaxIsNoTrap() throws {
        let file = Self.box("ftyp", size32: 1, large: UInt64(Int64.max))
        #expect(file.count == 16)
        #expect(try EmbeddedChapters.read(from: InMemoryBytes(file)) == [])
    }

    @Test(arguments: int64Edges)
    func aLargeSizeAnywhereAtTheTopLevelIsRefusedOrCut(_ size: UInt64) {
        for before in [[], Self.box("ftyp", size32: 16, payload: Array("M4A \0\0\0\0".utf8))] {
            let file = before + Self.box(before.isEmpty ? "ftyp" : "free", size32: 1, large: size)
            #expect(throws: Never.self) { _ = try? EmbeddedChapters.read(from: InMemoryBytes(file)) }
            #expect(throws: Never.self) { _ = try? MP4Chapters.findBox("moov", in: InMemoryBytes(file)) }
        }
    }

    @Test(arguments: [UInt32(0), 1, 7, 8, 9, 15, 16, UInt32.max, UInt32.max - 7])
    func smallAndLargeBoxSizes(_ size: UInt32) throws {
        let moov = Self.box("moov", size32: 8)
        let file = Self.box("ftyp", size32: 16, payload: Array("M4A \0\0\0\0".utf8)) + Self.box("free", size32: size) + moov
        #expect(throws: Never.self) { _ = try? EmbeddedChapters.read(from: InMemoryBytes(file)) }
    }

    @Test func aBoxEndingExactlyAtTheFilesEndOrPastItIsFound() throws {
        let ftyp = Self.box("ftyp", size32: 16, payload: Array("M4A \0\0\0\0".utf8))
        let exact = ftyp + Self.box("moov", size32: 16, payload: [UInt8](repeating: 0, count: 8))
        #expect(try MP4Chapters.findBox("moov", in: InMemoryBytes(exact)) == 24..<32)
        let past = ftyp + Self.box("moov", size32: 4000, payload: [UInt8](repeating: 0, count: 8))
        #expect(try MP4Chapters.findBox("moov", in: InMemoryBytes(past)) == 24..<32)  // a cut file keeps what it has
    }

    /// A source whose length is near `Int64.max`: a server's `Content-Range`
    /// says so. Box ends and reads near it are refused, not added.
    struct LyingLength: ChapterByteSource {
        let head: [UInt8]
        let length: Int64
        func bytes(in range: Range<Int64>) throws(ChapterError) -> [UInt8] {
            guard range.lowerBound < Int64(head.count) else { return [] }
            return Array(head[Int(range.lowerBound)..<Int(min(range.upperBound, Int64(head.count)))])
        }
    }

    @Test(arguments: [Int64.max, Int64.max - 1, Int64.max - 8, Int64.max - 16])
    func aFileAsLongAsInt64MaxIsNoTrap(_ length: Int64) {
        for size in Self.int64Edges {
            let head = Self.box("ftyp", size32: 1, large: size)
            #expect(throws: Never.self) { _ = try? EmbeddedChapters.read(from: LyingLength(head: head, length: length)) }
        }
        let flac = Array("fLaC".utf8) + [0x7F, 0xFF, 0xFF, 0xFF]
        #expect(throws: Never.self) { _ = try? EmbeddedChapters.read(from: LyingLength(head: flac, length: length)) }
        let id3FLAC = Array("ID3".utf8) + [4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F]
        #expect(throws: Never.self) { _ = try? EmbeddedChapters.read(from: LyingLength(head: id3FLAC, length: length)) }
    }

    @Test func offsetsAreAddedCheckedOrNotAtAll() throws {
        #expect(throws: ChapterError.self) { try FileOffset.advance(Int64.max - 3, by: 4, what: "box") }
        #expect(throws: ChapterError.self) { try FileOffset.advance(0, by: -1, what: "box") }
        #expect(try FileOffset.advance(Int64.max - 4, by: 4, what: "box") == Int64.max)
        #expect(!FileOffset.fits(8, at: Int64.max, in: 16))
        #expect(!FileOffset.fits(8, at: Int64.max - 7, in: Int64.max))
        #expect(FileOffset.fits(8, at: Int64.max - 8, in: Int64.max))
        #expect(FileOffset.fits(8, at: 8, in: 16) && !FileOffset.fits(9, at: 8, in: 16))
    }

    /// FLAC metadata blocks of every length a 24-bit field holds, last or not.
    @Test(arguments: [UInt32(0), 1, 3, 4, 0xFF_FFFF])
    func flacBlockLengths(_ length: UInt32) {
        for type: UInt8 in [0, 4, 0x84] {
            let block = [type] + Self.bigEndian(UInt64(length), width: 3)
            let file = Array("fLaC".utf8) + block + [UInt8](repeating: 0, count: 8)
            #expect(throws: Never.self) { _ = try? EmbeddedChapters.read(from: InMemoryBytes(file)) }
        }
    }

    /// Vorbis comment lengths: 0, 1, past the packet, `UInt32.max`.
    @Test(arguments: [UInt32(0), 1, 100, UInt32.max, UInt32.max - 3])
    func vorbisCommentLengths(_ length: UInt32) {
        let little = { (value: UInt32) in (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) } }
        let packet = Array("OpusTags".utf8) + little(length) + Array("vendor".utf8) + little(length) + little(length) + Array("CHAPTER001=00:00:01.000".utf8)
        #expect(throws: Never.self) { _ = VorbisChapters.comments(in: packet, from: 8) }
    }

    /// ID3 tag and frame sizes: 0, 1, a frame header less one, the largest synchsafe size.
    @Test(arguments: [UInt32(0), 1, 9, 0x7F7F_7F7F, UInt32.max])
    func id3Sizes(_ size: UInt32) {
        let frame = Array("CHAP".utf8) + Self.bigEndian(UInt64(size), width: 4) + [0, 0] + Array("c1\0".utf8) + [UInt8](repeating: 0xFF, count: 16)
        for version: UInt8 in [3, 4] {
            let tag = Array("ID3".utf8) + [version, 0, 0x40] + Self.bigEndian(UInt64(size & 0x7F7F_7F7F), width: 4)
                + Self.bigEndian(UInt64(size), width: 4) + frame
            #expect(throws: Never.self) { _ = ID3Chapters.parse(tag) }
            #expect(throws: Never.self) { _ = try? EmbeddedChapters.read(from: InMemoryBytes(tag)) }
        }
    }
}
