/// Chapters of an MP4 (M4A, M4B): the Nero `chpl` atom in `moov/udta`, and
/// the QuickTime chapter track (a text track that another track names in
/// its `tref/chap`). Players often read only one of the two; Pods reads
/// both and keeps the richer list (the QuickTime track's titles can be
/// Unicode and long, Nero's are cut to 255 bytes).
///
/// Only box headers are read on the way to `moov` (so a file whose `moov`
/// follows a large `mdat` costs a few small reads), then `moov` itself,
/// then each chapter sample.
public enum MP4Chapters {
    /// `moov` larger than this is not read (a long episode's is a few megabytes).
    static let maximumMovieBytes = 64 << 20
    /// Chapter samples read at most.
    static let maximumChapters = 5000

    /// Whether `head` (the file's first bytes) looks like an MP4.
    public static func matches(_ head: [UInt8]) -> Bool {
        head.count >= 8 && Array(head[4..<8]) == Array("ftyp".utf8)
    }

    public static func read(from source: some ChapterByteSource) throws(ChapterError) -> [EpisodeChapter] {
        guard let movie = try findBox("moov", in: source) else { return [] }
        guard movie.count <= Int64(maximumMovieBytes) else { throw ChapterError("the MP4 movie box claims \(movie.count) bytes") }
        let moov = try source.exactly(Int(movie.count), at: movie.lowerBound, what: "movie box")
        let nero = neroChapters(in: moov)
        let track = try trackChapters(in: moov, source: source)
        let best = track.count > nero.count || (track.count == nero.count && track.map(\.title.count).reduce(0, +) > nero.map(\.title.count).reduce(0, +))
        return (best ? track : nero).filter(\.hasTimesInRange)
    }

    // MARK: - Boxes

    /// A box's payload range in the file (after its header). A size that
    /// overflows, or points more than the box's header past the file's end
    /// before the box is found, makes the file malformed.
    static func findBox(_ type: String, in source: some ChapterByteSource) throws(ChapterError) -> Range<Int64>? {
        var offset: Int64 = 0
        for _ in 0..<10_000 {
            // What is left is compared with what is needed, never added to: an offset near Int64.max
            // (a box's end) must not trap.
            guard FileOffset.fits(8, at: offset, in: source.length) else { return nil }
            let header = try source.bytes(in: offset..<offset + min(16, source.length - offset))
            var cursor = ByteCursor(header)
            guard let size32 = cursor.u32(), let name = cursor.take(4) else { return nil }
            var headerSize: Int64 = 8
            var size = Int64(size32)
            if size32 == 1 {
                guard let large = cursor.u64() else { return nil }
                guard large <= UInt64(Int64.max) else { throw malformed(name, claims: large) }
                size = Int64(large)
                headerSize = 16
            } else if size32 == 0 {
                size = source.length - offset
            }
            guard size >= headerSize else { return nil }
            let (end, overflow) = offset.addingReportingOverflow(size)
            guard !overflow else { throw malformed(name, claims: UInt64(size)) }
            if String(decoding: name, as: UTF8.self) == type {
                return (offset + headerSize)..<min(end, source.length)  // a cut file keeps what it has
            }
            offset = end
        }
        return nil
    }

    static func malformed(_ name: ArraySlice<UInt8>, claims size: UInt64) -> ChapterError {
        ChapterError("malformed MP4: its \(String(decoding: name, as: UTF8.self).debugDescription) box claims \(size) bytes")
    }

    /// The child boxes of a payload: (type, payload range in `bytes`).
    static func children(of bytes: [UInt8], in range: Range<Int>) -> [(type: String, range: Range<Int>)] {
        var result: [(String, Range<Int>)] = []
        var cursor = ByteCursor(bytes, from: range.lowerBound, to: range.upperBound)
        while cursor.remaining >= 8 {
            let start = cursor.offset
            guard let size32 = cursor.u32(), let name = cursor.take(4) else { break }
            var size = Int(size32)
            if size32 == 1 {
                guard let large = cursor.u64(), large <= UInt64(Int.max) else { break }
                size = Int(large)
            } else if size32 == 0 {
                size = range.upperBound - start
            }
            let payloadStart = cursor.offset
            // A size past the parent's end (or past Int.max) ends the list: what came before stands.
            let (end, overflow) = start.addingReportingOverflow(size)
            guard !overflow, size >= payloadStart - start, end <= range.upperBound else { break }
            result.append((String(decoding: name, as: UTF8.self), payloadStart..<end))
            guard cursor.skip(end - payloadStart) else { break }
        }
        return result
    }

    static func child(_ type: String, of bytes: [UInt8], in range: Range<Int>) -> Range<Int>? {
        children(of: bytes, in: range).first { $0.type == type }?.range
    }

    static func path(_ types: [String], in bytes: [UInt8], from range: Range<Int>) -> Range<Int>? {
        var current = range
        for type in types {
            guard let next = child(type, of: bytes, in: current) else { return nil }
            current = next
        }
        return current
    }

    // MARK: - Nero chpl

    static func neroChapters(in moov: [UInt8]) -> [EpisodeChapter] {
        guard let chpl = path(["udta", "chpl"], in: moov, from: 0..<moov.count) else { return [] }
        var cursor = ByteCursor(moov, from: chpl.lowerBound, to: chpl.upperBound)
        guard let version = cursor.u8(), cursor.skip(3), version == 0 || cursor.skip(4), let count = cursor.u8() else { return [] }
        var chapters: [EpisodeChapter] = []
        for _ in 0..<count {
            guard let start = cursor.u64(), let length = cursor.u8(), let title = cursor.take(Int(length)) else { break }
            chapters.append(EpisodeChapter(start: Double(start) / 10_000_000, title: utf8Text(title), source: .mp4))
        }
        return chapters.sorted { $0.start < $1.start }
    }

    // MARK: - QuickTime chapter track

    struct Track {
        var id: UInt32
        var chapterTrackIDs: [UInt32]
        var timescale: UInt32
        var sampleTable: Range<Int>?
    }

    static func trackChapters(in moov: [UInt8], source: some ChapterByteSource) throws(ChapterError) -> [EpisodeChapter] {
        let tracks = children(of: moov, in: 0..<moov.count).filter { $0.type == "trak" }.compactMap { track(moov, $0.range) }
        let chapterIDs = Set(tracks.flatMap(\.chapterTrackIDs))
        guard let chapterTrack = tracks.first(where: { chapterIDs.contains($0.id) }), chapterTrack.timescale > 0,
              let table = chapterTrack.sampleTable else { return [] }
        let samples = sampleLayout(moov, table)
        var chapters: [EpisodeChapter] = []
        for sample in samples.prefix(maximumChapters) {
            guard sample.size >= 2, sample.size <= 64 << 10 else { continue }
            let (end, overflow) = sample.offset.addingReportingOverflow(Int64(sample.size))
            guard !overflow, end <= source.length else { continue }
            let bytes = try source.bytes(in: sample.offset..<end)
            var cursor = ByteCursor(bytes)
            guard let length = cursor.u16(), let text = cursor.take(Int(length)) else { continue }
            chapters.append(EpisodeChapter(start: Double(sample.time) / Double(chapterTrack.timescale),
                                           end: (Double(sample.time) + Double(sample.duration)) / Double(chapterTrack.timescale),
                                           title: sampleText(text), source: .mp4))
        }
        return chapters
    }

    static func track(_ moov: [UInt8], _ range: Range<Int>) -> Track? {
        guard let tkhd = child("tkhd", of: moov, in: range) else { return nil }
        var header = ByteCursor(moov, from: tkhd.lowerBound, to: tkhd.upperBound)
        guard let version = header.u8(), header.skip(3), header.skip(version == 1 ? 16 : 8), let id = header.u32() else { return nil }
        var chapterIDs: [UInt32] = []
        if let chap = path(["tref", "chap"], in: moov, from: range) {
            var cursor = ByteCursor(moov, from: chap.lowerBound, to: chap.upperBound)
            while let id = cursor.u32() { chapterIDs.append(id) }
        }
        var timescale: UInt32 = 0
        if let mdhd = path(["mdia", "mdhd"], in: moov, from: range) {
            var cursor = ByteCursor(moov, from: mdhd.lowerBound, to: mdhd.upperBound)
            if let version = cursor.u8(), cursor.skip(3), cursor.skip(version == 1 ? 16 : 8), let scale = cursor.u32() { timescale = scale }
        }
        return Track(id: id, chapterTrackIDs: chapterIDs, timescale: timescale,
                     sampleTable: path(["mdia", "minf", "stbl"], in: moov, from: range))
    }

    struct Sample {
        var offset: Int64
        var size: Int
        var time: UInt64
        var duration: UInt64
    }

    /// Each sample's place in the file and time, from `stts`, `stsz`,
    /// `stsc` and `stco`/`co64`.
    static func sampleLayout(_ moov: [UInt8], _ stbl: Range<Int>) -> [Sample] {
        func fullBox(_ type: String) -> ByteCursor? {
            guard let range = child(type, of: moov, in: stbl) else { return nil }
            var cursor = ByteCursor(moov, from: range.lowerBound, to: range.upperBound)
            return cursor.skip(4) ? cursor : nil
        }
        guard var stts = fullBox("stts"), var stsz = fullBox("stsz"), var stsc = fullBox("stsc") else { return [] }
        // Durations.
        var durations: [UInt64] = []
        if let count = stts.u32() {
            for _ in 0..<min(count, UInt32(maximumChapters)) {
                guard let samples = stts.u32(), let delta = stts.u32() else { break }
                durations += Array(repeating: UInt64(delta), count: Int(min(samples, UInt32(maximumChapters))))
                if durations.count >= maximumChapters { break }
            }
        }
        // Sizes.
        guard let uniformSize = stsz.u32(), let sampleCount = stsz.u32() else { return [] }
        let count = min(Int(sampleCount), maximumChapters)
        var sizes: [Int] = []
        for _ in 0..<count {
            if uniformSize != 0 { sizes.append(Int(uniformSize)) } else if let size = stsz.u32() { sizes.append(Int(size)) } else { break }
        }
        // Chunk offsets.
        var chunkOffsets: [Int64] = []
        if var stco = fullBox("stco"), let chunks = stco.u32() {
            for _ in 0..<min(chunks, UInt32(maximumChapters)) { if let offset = stco.u32() { chunkOffsets.append(Int64(offset)) } }
        } else if var co64 = fullBox("co64"), let chunks = co64.u32() {
            for _ in 0..<min(chunks, UInt32(maximumChapters)) {
                if let offset = co64.u64(), offset <= UInt64(Int64.max) { chunkOffsets.append(Int64(offset)) }
            }
        }
        // Samples per chunk: runs of (first chunk, samples per chunk).
        var runs: [(firstChunk: Int, perChunk: Int)] = []
        if let entries = stsc.u32() {
            for _ in 0..<min(entries, UInt32(maximumChapters)) {
                guard let first = stsc.u32(), let perChunk = stsc.u32(), stsc.skip(4) else { break }
                runs.append((Int(first), Int(perChunk)))
            }
        }
        var samples: [Sample] = []
        var time: UInt64 = 0
        var sampleIndex = 0
        for (chunkIndex, chunkOffset) in chunkOffsets.enumerated() where sampleIndex < sizes.count {
            let chunkNumber = chunkIndex + 1
            let perChunk = runs.last(where: { $0.firstChunk <= chunkNumber })?.perChunk ?? 1
            var offset = chunkOffset
            // perChunk is anyone's number up to UInt32.max: loop over the samples left, not over it.
            for _ in 0..<min(max(0, perChunk), sizes.count - sampleIndex) {
                let duration = sampleIndex < durations.count ? durations[sampleIndex] : 0
                samples.append(Sample(offset: offset, size: sizes[sampleIndex], time: time, duration: duration))
                // Offsets near Int64.max (co64 is anyone's to write) end the chunk; sample times are at
                // most 5,000 × UInt32.max, far below UInt64's range.
                let (next, overflow) = offset.addingReportingOverflow(Int64(sizes[sampleIndex]))
                sampleIndex += 1
                time += duration
                guard !overflow else { break }
                offset = next
            }
        }
        return samples
    }

    /// A text sample's string: UTF-8, or UTF-16 after a byte-order mark.
    static func sampleText(_ bytes: ArraySlice<UInt8>) -> String {
        if bytes.count >= 2, bytes[bytes.startIndex] == 0xFE, bytes[bytes.startIndex + 1] == 0xFF {
            let body = bytes.dropFirst(2)
            let units = stride(from: body.startIndex, to: body.endIndex - 1, by: 2).map { UInt16(body[$0]) << 8 | UInt16(body[$0 + 1]) }
            return String(decoding: units, as: UTF16.self)
        }
        return utf8Text(bytes)
    }
}
