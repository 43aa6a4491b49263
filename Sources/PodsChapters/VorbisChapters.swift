/// Chapters from Vorbis comments (`CHAPTER001=00:01:30.500`,
/// `CHAPTER001NAME=…`, `CHAPTER001URL=…`, the Xiph chapter extension) in
/// Ogg Vorbis, Ogg Opus and FLAC files. The comments sit in the file's
/// first packets, so only the first bytes are read.
public enum VorbisChapters {
    /// Comment headers larger than this are not read (cover art inside
    /// `METADATA_BLOCK_PICTURE` makes them large).
    static let maximumCommentBytes = 16 << 20

    public static func matches(_ head: [UInt8]) -> Bool {
        head.starts(with: Array("OggS".utf8)) || head.starts(with: Array("fLaC".utf8))
    }

    public static func read(from source: some ChapterByteSource) throws(ChapterError) -> [EpisodeChapter] {
        let head = try source.bytes(in: 0..<4)
        let comments: [String]
        if head.starts(with: Array("fLaC".utf8)) {
            comments = try flacComments(source)
        } else if head.starts(with: Array("OggS".utf8)) {
            comments = try oggComments(source)
        } else {
            return []
        }
        return chapters(fromComments: comments)
    }

    // MARK: - Comments to chapters

    /// Chapters from `KEY=value` comments; keys are case-insensitive.
    public static func chapters(fromComments comments: [String]) -> [EpisodeChapter] {
        var starts: [String: Double] = [:]
        var names: [String: String] = [:]
        var urls: [String: String] = [:]
        for comment in comments {
            guard let equals = comment.firstIndex(of: "=") else { continue }
            let key = comment[..<equals].uppercased()
            let value = String(comment[comment.index(after: equals)...])
            guard key.hasPrefix("CHAPTER") else { continue }
            let rest = key.dropFirst("CHAPTER".count)
            let number = String(rest.prefix { $0.isASCII && $0.isNumber })
            guard !number.isEmpty else { continue }
            switch rest.dropFirst(number.count) {
            case "": if let start = EpisodeChapter.seconds(fromClock: value) { starts[number] = start }
            case "NAME": names[number] = value
            case "URL": urls[number] = value
            default: break
            }
        }
        return starts
            .map { number, start in
                EpisodeChapter(start: start, title: names[number] ?? "", url: urls[number], source: .vorbis)
            }
            .sorted { $0.start < $1.start }
    }

    /// The comments of a Vorbis comment structure (after any packet magic):
    /// a vendor string, then a count of length-prefixed strings, little-endian.
    static func comments(in bytes: [UInt8], from start: Int) -> [String] {
        var cursor = ByteCursor(bytes, from: start)
        guard let vendorLength = cursor.u32LE(), cursor.skip(Int(vendorLength)), let count = cursor.u32LE() else { return [] }
        var comments: [String] = []
        for _ in 0..<min(count, 100_000) {
            guard let length = cursor.u32LE(), let text = cursor.take(Int(length)) else { break }
            comments.append(utf8Text(text))
        }
        return comments
    }

    // MARK: - FLAC

    static func flacComments(_ source: some ChapterByteSource) throws(ChapterError) -> [String] {
        var offset: Int64 = 4
        for _ in 0..<128 {
            let header = try source.exactly(4, at: offset, what: "FLAC metadata")
            let isLast = header[0] & 0x80 != 0
            let type = header[0] & 0x7F
            let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            if type == 4 {
                return comments(in: try source.exactly(length, at: try FileOffset.advance(offset, by: 4, what: "FLAC metadata"), what: "FLAC comments"), from: 0)
            }
            if isLast { break }
            offset = try FileOffset.advance(offset, by: 4 + Int64(length), what: "FLAC metadata")
        }
        return []
    }

    // MARK: - Ogg

    /// The comments of the first logical stream: its second packet (Vorbis
    /// `\u{3}vorbis`, or `OpusTags`), joined across pages.
    static func oggComments(_ source: some ChapterByteSource) throws(ChapterError) -> [String] {
        var offset: Int64 = 0
        var serial: UInt32?
        var packets: [[UInt8]] = []
        var current: [UInt8] = []
        while packets.count < 2, offset < source.length {
            let header = try source.exactly(27, at: offset, what: "Ogg page")
            guard header.starts(with: Array("OggS".utf8)) else { throw ChapterError("the Ogg stream is broken at byte \(offset)") }
            var cursor = ByteCursor(header, from: 14)
            guard let pageSerial = cursor.u32LE() else { break }
            let segmentCount = Int(header[26])
            let lacing = try source.exactly(segmentCount, at: try FileOffset.advance(offset, by: 27, what: "Ogg page"), what: "Ogg page")
            let bodyLength = lacing.reduce(0) { $0 + Int($1) }
            let bodyStart = try FileOffset.advance(offset, by: 27 + Int64(segmentCount), what: "Ogg page")
            offset = try FileOffset.advance(bodyStart, by: Int64(bodyLength), what: "Ogg page")
            if serial == nil { serial = pageSerial }
            guard pageSerial == serial else { continue }
            let body = try source.exactly(bodyLength, at: bodyStart, what: "Ogg page")
            var position = 0
            for lace in lacing {
                current += body[position..<position + Int(lace)]
                position += Int(lace)
                guard current.count <= maximumCommentBytes else { throw ChapterError("the Ogg comment header is too large") }
                if lace < 255 {
                    packets.append(current)
                    current = []
                    if packets.count == 2 { break }
                }
            }
        }
        guard packets.count == 2 else { return [] }
        let packet = packets[1]
        if packet.starts(with: [3] + Array("vorbis".utf8)) { return comments(in: packet, from: 7) }
        if packet.starts(with: Array("OpusTags".utf8)) { return comments(in: packet, from: 8) }
        return []
    }
}
