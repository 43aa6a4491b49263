import Foundation

/// Media files with chapters, made with `ffmpeg` and mutagen
/// (`python3-mutagen`) the way real publishers' tools write them.
public enum ChapterFixtures {
    /// A chapter to write: start and end in seconds.
    public struct Mark: Sendable {
        public var start: Double
        public var end: Double
        public var title: String

        public init(_ start: Double, _ end: Double, _ title: String) {
            self.start = start
            self.end = end
            self.title = title
        }
    }

    /// How the file stores its chapters.
    public enum Kind: String, Sendable {
        /// MP3 with ID3v2.4 `CHAP` frames and a top-level `CTOC` (ffmpeg).
        case mp3
        /// M4A with a Nero `chpl` atom and a QuickTime chapter track (ffmpeg).
        case m4a
        /// Ogg Vorbis, Opus and FLAC with `CHAPTERxxx` comments (mutagen).
        case ogg, opus, flac
    }

    /// Makes `name` in `directory`: `seconds` of a quiet tone with `marks`.
    public static func make(_ kind: Kind, _ marks: [Mark], seconds: Int, name: String, in directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent(name)
        var metadata = ";FFMETADATA1\ntitle=Chapters\n"
        if kind == .mp3 || kind == .m4a {
            for mark in marks {
                metadata += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(Int(mark.start * 1000))\nEND=\(Int(mark.end * 1000))\ntitle=\(mark.title)\n"
            }
        }
        let metadataFile = directory.appendingPathComponent(name + ".ffmeta")
        try Data(metadata.utf8).write(to: metadataFile)
        let result = await Subprocess.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)", "-i", metadataFile.path,
            "-map_metadata", "1", "-map_chapters", kind == .mp3 || kind == .m4a ? "1" : "-1", "-y", url.path,
        ], timeout: .seconds(60))
        guard result.status == 0 else { throw TestSupportError("ffmpeg could not make \(name): \(result)") }
        if kind == .ogg || kind == .opus || kind == .flac {
            var comments: [String: String] = [:]
            for (index, mark) in marks.enumerated() {
                let number = String(format: "%03d", index + 1)
                comments["CHAPTER\(number)"] = clock(mark.start)
                comments["CHAPTER\(number)NAME"] = mark.title
            }
            let type = switch kind {
            case .ogg: "mutagen.oggvorbis.OggVorbis"
            case .opus: "mutagen.oggopus.OggOpus"
            default: "mutagen.flac.FLAC"
            }
            try await mutagen("""
                import json, sys, mutagen.oggvorbis, mutagen.oggopus, mutagen.flac
                audio = \(type)(sys.argv[1])
                for key, value in json.loads(sys.argv[2]).items():
                    audio[key] = value
                audio.save()
                """, [url.path, String(decoding: try JSONEncoder().encode(comments), as: UTF8.self)])
        }
        return url
    }

    /// Runs a Python script with Debian's python3 (which has mutagen).
    public static func mutagen(_ script: String, _ arguments: [String]) async throws {
        let result = await Subprocess.run("/usr/bin/python3", ["-c", script] + arguments, timeout: .seconds(60))
        guard result.status == 0 else { throw TestSupportError("mutagen failed: \(result)") }
    }

    /// `HH:MM:SS.mmm`.
    public static func clock(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", milliseconds / 3_600_000, milliseconds / 60_000 % 60,
                      milliseconds / 1000 % 60, milliseconds % 1000)
    }
}

extension ChapterFixtures {
    /// An MP4's bytes with one more box, whose 64-bit size is `size` (an
    /// absurd one, for hostile-file tests), put first or last in the box at
    /// `path` (such as ["moov"] or ["moov", "udta"]; an empty path puts it at
    /// the top level, after `ftyp`); every box on the way is grown to hold it,
    /// so players read the file as before.
    public static func inserting(boxOfSize size: UInt64, into path: [String], atEnd: Bool, of file: [UInt8]) throws -> [UInt8] {
        let box: [UInt8] = [0, 0, 0, 1] + Array("free".utf8) + (0..<8).map { UInt8(truncatingIfNeeded: size >> (56 - 8 * UInt64($0))) }
        func u32(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        var bytes = file
        var parent = 0..<file.count
        var headers: [Int] = []
        for type in path {
            var offset = parent.lowerBound
            var found: Int?
            while offset + 8 <= parent.upperBound {
                let boxSize = u32(bytes, offset)
                guard boxSize >= 8 else { break }
                if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == type { found = offset; break }
                offset += boxSize
            }
            guard let found else { throw TestSupportError("no \(type) box in \(path)") }
            headers.append(found)
            parent = found + 8..<found + u32(bytes, found)
        }
        let at = path.isEmpty ? u32(bytes, 0) : atEnd ? parent.upperBound : parent.lowerBound
        bytes.insert(contentsOf: box, at: at)
        for header in headers {
            let grown = u32(bytes, header) + box.count
            for index in 0..<4 { bytes[header + index] = UInt8(truncatingIfNeeded: grown >> (24 - 8 * index)) }
        }
        return bytes
    }
}
