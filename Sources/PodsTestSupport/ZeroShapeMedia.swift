import Foundation

/// Audio whose header says a sample rate or channel count of 0 (or the
/// reserved rate), one file per format and field: what a hostile enclosure
/// sends to make C code divide by zero or plug what an audio player never
/// should. Made from ffmpeg's own files, the fields set to 0 where each
/// format keeps them (an Ogg page's CRC made again, so the page is read).
public enum ZeroShapeMedia {
    /// Makes every file in `directory`; their URLs, by name (`vorbis-rate.ogg`, …).
    public static func make(in directory: URL) async throws -> [String: URL] {
        var made: [String: [UInt8]] = [:]
        let wav = try await encoded(["-ar", "16000"], "wav", in: directory)
        for (name, fields) in [("rate", [(24, 4)]), ("channels", [(22, 2)]), ("both", [(22, 2), (24, 4), (28, 4), (32, 2)])] {
            var bytes = wav
            for (offset, count) in fields { bytes.replaceSubrange(offset..<offset + count, with: repeatElement(0, count: count)) }
            made["wav-\(name).wav"] = bytes
        }
        // Vorbis's identification header: version (4), channels (1), rate (4). Opus's head: version (1), channels (1), pre-skip (2), rate (4).
        let vorbis = try await encoded(["-ar", "16000", "-c:a", "libvorbis"], "ogg", in: directory)
        let opus = try await encoded(["-ar", "48000", "-c:a", "libopus"], "opus", in: directory)
        for field in ["rate", "channels", "both"] {
            made["vorbis-\(field).ogg"] = oggPatched(vorbis, after: Array("\u{1}vorbis".utf8)) { bytes, at in
                if field != "rate" { bytes[at + 4] = 0 }
                if field != "channels" { bytes.replaceSubrange(at + 5..<at + 9, with: [0, 0, 0, 0]) }
            }
            made["opus-\(field).opus"] = oggPatched(opus, after: Array("OpusHead".utf8)) { bytes, at in
                if field != "rate" { bytes[at + 1] = 0 }
                if field != "channels" { bytes.replaceSubrange(at + 4..<at + 8, with: [0, 0, 0, 0]) }
            }
        }
        // FLAC's STREAMINFO: the 20-bit rate after 10 bytes of block and frame sizes.
        var flac = try await encoded(["-ar", "16000"], "flac", in: directory)
        flac[18] = 0
        flac[19] = 0
        flac[20] &= 0x0F
        made["flac-rate.flac"] = flac
        // MP4: the mp4a sample entry's channel count and rate, the media header's timescale.
        let m4a = try await encoded(["-ar", "16000", "-c:a", "aac"], "m4a", in: directory)
        for field in ["rate", "channels", "timescale", "all"] {
            var bytes = m4a
            if let entry = find(Array("mp4a".utf8), in: bytes).map({ $0 + 4 }) {
                if field == "channels" || field == "all" { bytes.replaceSubrange(entry + 16..<entry + 18, with: [0, 0]) }
                if field == "rate" || field == "all" { bytes.replaceSubrange(entry + 24..<entry + 28, with: [0, 0, 0, 0]) }
            }
            if field == "timescale" || field == "all", let header = find(Array("mdhd".utf8), in: bytes).map({ $0 + 4 }) {
                bytes.replaceSubrange(header + 12..<header + 16, with: [0, 0, 0, 0])
            }
            made["m4a-\(field).m4a"] = bytes
        }
        // MP3: every frame names the reserved sample-rate index (such a file typefinds as MPEG-4 video).
        var mp3 = try await encoded(["-ar", "16000"], "mp3", in: directory)
        var index = 0
        while index + 4 < mp3.count {
            if mp3[index] == 0xFF, mp3[index + 1] & 0xE0 == 0xE0 {
                mp3[index + 2] |= 0x0C
                index += 4
            } else {
                index += 1
            }
        }
        made["mp3-rate.mp3"] = mp3
        var urls: [String: URL] = [:]
        for (name, bytes) in made {
            let url = directory.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            urls[name] = url
        }
        return urls
    }

    private static func encoded(_ options: [String], _ suffix: String, in directory: URL) async throws -> [UInt8] {
        let url = directory.appendingPathComponent("zero-base.\(suffix)")
        let result = await Subprocess.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=330:duration=4", "-ac", "2"]
                                          + options + [url.path], timeout: .seconds(60))
        guard result.status == 0, let data = FileManager.default.contents(atPath: url.path) else {
            throw TestSupportError("ffmpeg could not make \(url.lastPathComponent): \(result)")
        }
        return Array(data)
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int = 0) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    /// `patch(bytes, index)` applied after `marker`'s first place, and that Ogg page's CRC made again.
    private static func oggPatched(_ original: [UInt8], after marker: [UInt8], _ patch: (inout [UInt8], Int) -> Void) -> [UInt8] {
        var bytes = original
        guard let at = find(marker, in: bytes),
              let page = (0...at).reversed().first(where: { bytes[$0..<min(bytes.count, $0 + 4)].elementsEqual(Array("OggS".utf8)) })
        else { return bytes }
        patch(&bytes, at + marker.count)
        let segments = Int(bytes[page + 26])
        let size = 27 + segments + bytes[(page + 27)..<(page + 27 + segments)].reduce(0) { $0 + Int($1) }
        bytes.replaceSubrange(page + 22..<page + 26, with: [0, 0, 0, 0])
        var crc: UInt32 = 0
        for byte in bytes[page..<min(bytes.count, page + size)] {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        bytes.replaceSubrange(page + 22..<page + 26, with: [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)])
        return bytes
    }
}
