/// Chapters from an ID3v2.3 or v2.4 tag's `CHAP` and `CTOC` frames (ID3v2
/// Chapter Frame Addendum 1.0). GStreamer's id3demux drops these frames,
/// so Pods reads the tag itself: only the tag's own bytes, at the start of
/// the file.
///
/// Which chapters are jump points: when the tag has a `CTOC`, the chapters
/// it (or a table under it) lists; others are silent. Without a `CTOC`,
/// every `CHAP`.
public enum ID3Chapters {
    /// The most tag bytes read (a tag with cover art and chapter images is
    /// a few megabytes; a larger size field is a broken file).
    static let maximumTagBytes = 32 << 20

    /// The tag's size when `header` (the file's first 10 bytes) starts an
    /// ID3v2 tag: the 10-byte header plus the body.
    public static func tagLength(header: [UInt8]) -> Int? {
        guard header.count >= 10, header[0] == 0x49, header[1] == 0x44, header[2] == 0x33 else { return nil }
        let size = header[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
        return 10 + size + (header[5] & 0x10 != 0 ? 10 : 0)
    }

    /// Reads the tag at the start of `source`; an empty list when there is
    /// no tag or it has no chapters.
    public static func read(from source: some ChapterByteSource) throws(ChapterError) -> [EpisodeChapter] {
        let header = try source.bytes(in: 0..<10)
        guard let length = tagLength(header: header) else { return [] }
        guard length <= maximumTagBytes else { throw ChapterError("the ID3 tag claims \(length) bytes") }
        return parse(try source.bytes(in: 0..<Int64(length)))
    }

    /// The chapters of a whole tag (header included).
    public static func parse(_ tag: [UInt8]) -> [EpisodeChapter] {
        guard tag.count >= 10, tagLength(header: Array(tag.prefix(10))) != nil else { return [] }
        let version = tag[3]
        let flags = tag[5]
        guard version == 3 || version == 4 else { return [] }  // v2.2 has no chapter frames
        var body = Array(tag[10...])
        if version == 3, flags & 0x80 != 0 { body = removingUnsynchronisation(body) }
        var cursor = ByteCursor(body)
        if flags & 0x40 != 0 {  // extended header
            guard let size = cursor.u32() else { return [] }
            let skip = version == 4 ? Int(synchsafe(size)) - 4 : Int(size)
            guard cursor.skip(skip) else { return [] }
        }
        let frames = Frames(version: version, tagUnsynchronised: version == 4 && flags & 0x80 != 0)
        var chapters: [(id: String, chapter: EpisodeChapter)] = []
        var tables: [Table] = []
        for frame in frames.read(&cursor) {
            switch frame.id {
            case "CHAP": if let chapter = frames.chapter(frame.data) { chapters.append(chapter) }
            case "CTOC": if let table = frames.table(frame.data) { tables.append(table) }
            default: break
            }
        }
        let listed = tocMembers(tables)
        return chapters
            .map { entry in
                var chapter = entry.chapter
                chapter.toc = listed.map { $0.contains(entry.id) } ?? true
                return chapter
            }
            .sorted { $0.start < $1.start }
    }

    // MARK: - Tables of contents

    struct Table {
        var id: String
        var topLevel: Bool
        var children: [String]
    }

    /// The element ids a table of contents reaches (from the top-level one,
    /// else from every table); nil without any `CTOC`.
    static func tocMembers(_ tables: [Table]) -> Set<String>? {
        guard !tables.isEmpty else { return nil }
        let byID = Dictionary(tables.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var reached = Set<String>()
        var pending = tables.filter(\.topLevel).map(\.id)
        if pending.isEmpty { pending = tables.map(\.id) }
        var visited = Set<String>()
        while let id = pending.popLast() {
            guard visited.insert(id).inserted, let table = byID[id] else { continue }
            for child in table.children {
                reached.insert(child)
                if byID[child] != nil { pending.append(child) }
            }
        }
        return reached
    }

    // MARK: - Frames

    struct Frame {
        var id: String
        var data: [UInt8]
    }

    struct Frames {
        let version: UInt8
        let tagUnsynchronised: Bool

        /// The frames in `cursor`, until padding or the end.
        func read(_ cursor: inout ByteCursor) -> [Frame] {
            var frames: [Frame] = []
            while cursor.remaining >= 10 {
                guard let idBytes = cursor.take(4), idBytes.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }),
                      let rawSize = cursor.u32(), let formatFlags = cursor.bigEndian(2).map({ UInt8($0 & 0xFF) }) else { break }
                let size = version == 4 ? Int(synchsafe(rawSize)) : Int(rawSize)
                guard let payload = cursor.take(size) else { break }
                if let data = frameData(Array(payload), flags: formatFlags) {
                    frames.append(Frame(id: String(decoding: idBytes, as: UTF8.self), data: data))
                }
            }
            return frames
        }

        /// The frame's data, with its extra header bytes and
        /// unsynchronisation undone; nil for compressed or encrypted frames.
        private func frameData(_ payload: [UInt8], flags: UInt8) -> [UInt8]? {
            var data = payload
            if version == 4 {
                guard flags & 0x0C == 0 else { return nil }
                var skip = 0
                if flags & 0x40 != 0 { skip += 1 }
                if flags & 0x01 != 0 { skip += 4 }
                guard skip <= data.count else { return nil }
                data.removeFirst(skip)
                if flags & 0x02 != 0 || tagUnsynchronised { data = removingUnsynchronisation(data) }
            } else {
                guard flags & 0xC0 == 0 else { return nil }
                if flags & 0x20 != 0 {
                    guard !data.isEmpty else { return nil }
                    data.removeFirst()
                }
            }
            return data
        }

        func chapter(_ data: [UInt8]) -> (id: String, chapter: EpisodeChapter)? {
            var cursor = ByteCursor(data)
            let id = utf8Text(cursor.terminated())
            guard let start = cursor.u32(), let end = cursor.u32(), cursor.skip(8) else { return nil }
            var chapter = EpisodeChapter(start: Double(start) / 1000, end: end > start && end != .max ? Double(end) / 1000 : nil,
                                         title: "", source: .id3)
            for frame in read(&cursor) {
                switch frame.id {
                case "TIT2": chapter.title = text(frame.data)
                case "WXXX": chapter.url = link(frame.data)
                case "APIC": chapter.embeddedImage = picture(frame.data)
                default: break
                }
            }
            return (id, chapter)
        }

        func table(_ data: [UInt8]) -> Table? {
            var cursor = ByteCursor(data)
            let id = utf8Text(cursor.terminated())
            guard let flags = cursor.u8(), let count = cursor.u8() else { return nil }
            let children = (0..<Int(count)).map { _ in utf8Text(cursor.terminated()) }
            return Table(id: id, topLevel: flags & 0x02 != 0, children: children)
        }

        /// A text frame's first string.
        func text(_ data: [UInt8]) -> String {
            var cursor = ByteCursor(data)
            guard let encoding = cursor.u8() else { return "" }
            return decode(cursor.terminated(width: Self.terminatorWidth(encoding)), encoding: encoding)
        }

        /// `WXXX`: encoding, description, then the URL in ISO-8859-1.
        func link(_ data: [UInt8]) -> String? {
            var cursor = ByteCursor(data)
            guard let encoding = cursor.u8() else { return nil }
            _ = cursor.terminated(width: Self.terminatorWidth(encoding))
            let url = decode(cursor.terminated(), encoding: 0)
            return url.isEmpty ? nil : url
        }

        /// `APIC`: encoding, MIME type, picture type, description, bytes.
        func picture(_ data: [UInt8]) -> EmbeddedImage? {
            var cursor = ByteCursor(data)
            guard let encoding = cursor.u8() else { return nil }
            let mime = decode(cursor.terminated(), encoding: 0)
            guard cursor.u8() != nil else { return nil }
            _ = cursor.terminated(width: Self.terminatorWidth(encoding))
            let bytes = Array(cursor.rest())
            return bytes.isEmpty ? nil : EmbeddedImage(mimeType: mime.isEmpty ? "image/jpeg" : mime, bytes: bytes)
        }

        static func terminatorWidth(_ encoding: UInt8) -> Int { encoding == 1 || encoding == 2 ? 2 : 1 }

        /// Text in one of ID3's four encodings.
        func decode(_ bytes: ArraySlice<UInt8>, encoding: UInt8) -> String {
            switch encoding {
            case 1, 2:
                var units = stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map {
                    UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
                }
                var littleEndian = false
                if encoding == 1, let first = units.first {
                    if first == 0xFFFE { littleEndian = true }
                    if first == 0xFFFE || first == 0xFEFF { units.removeFirst() }
                }
                if littleEndian { units = units.map(\.byteSwapped) }
                return String(decoding: units, as: UTF16.self)
            case 3:
                return utf8Text(bytes)
            default:
                return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
            }
        }
    }

    // MARK: - Sizes

    static func synchsafe(_ value: UInt32) -> UInt32 {
        (value & 0x7F) | (value >> 8 & 0x7F) << 7 | (value >> 16 & 0x7F) << 14 | (value >> 24 & 0x7F) << 21
    }

    /// Undoes unsynchronisation: every `FF 00` becomes `FF`.
    static func removingUnsynchronisation(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var previous: UInt8 = 0
        for byte in bytes {
            if !(previous == 0xFF && byte == 0) { result.append(byte) }
            previous = byte
        }
        return result
    }
}
