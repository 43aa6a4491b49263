import Foundation
import PodsFeedParser

/// A stable 64-bit hash of everything a feed says about an episode, stored
/// beside it so that a refresh skips an unchanged item with one integer
/// comparison instead of reading and decoding the stored row. (Swift's
/// `Hasher` is seeded per process, so it cannot be stored.)
///
/// Text is taken eight bytes at a time (a multiply and a shift per word):
/// a feed's descriptions are most of its bytes, and a byte-at-a-time hash
/// (FNV-1a, this hash's first form) was a tenth of a refresh's parsing.
/// Library migration v9 made the stored hashes of the first form again.
struct EpisodeContentHash {
    private var state: UInt64 = 0xcbf2_9ce4_8422_2325

    static func of(_ episode: Episode) -> Int64 {
        var hash = EpisodeContentHash()
        hash.add(episode.title)
        hash.add(episode.link)
        hash.add(episode.plainDescription)
        hash.add(episode.descriptionHTML)
        hash.add(episode.published?.timeIntervalSince1970)
        hash.add(episode.duration)
        hash.add(episode.enclosures.count)
        for enclosure in episode.enclosures {
            hash.add(enclosure.url)
            hash.add(enclosure.type)
            hash.add(enclosure.length)
        }
        hash.add(episode.artworkURL)
        hash.add(episode.season)
        hash.add(episode.number)
        hash.add(episode.episodeType)
        hash.add(episode.explicit.map { $0 ? 1 : 0 })
        hash.add(episode.author)
        hash.add(episode.chapters.count)
        for chapter in episode.chapters {
            hash.add(chapter.start)
            hash.add(chapter.title)
            hash.add(chapter.url)
            hash.add(chapter.image)
        }
        hash.add(episode.chaptersURL)
        hash.add(episode.transcriptURL)
        hash.add(episode.persons.count)
        for person in episode.persons {
            hash.add(person.name)
            hash.add(person.role)
            hash.add(person.group)
            hash.add(person.url)
            hash.add(person.image)
        }
        return Int64(bitPattern: hash.state)
    }

    @inline(__always)
    private mutating func word(_ value: UInt64) {
        state = (state ^ value) &* 0x9E37_79B9_7F4A_7C15
        state ^= state >> 29
    }

    private mutating func byte(_ value: UInt8) { word(UInt64(value)) }

    private mutating func add(_ text: String?) {
        guard var text else { return byte(0) }
        byte(1)
        text.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            var index = 0
            while index + 8 <= raw.count {
                word(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
                index += 8
            }
            var tail: UInt64 = 0
            for offset in 0..<(raw.count - index) { tail |= UInt64(raw[index + offset]) << (8 * UInt64(offset)) }
            word(tail)
            word(UInt64(raw.count))  // the length ends the field: "ab" + "" differs from "a" + "b"
        }
    }

    private mutating func add(_ number: Double?) {
        add(number.map { Int64(bitPattern: $0.bitPattern) })
    }

    private mutating func add(_ number: Int?) {
        add(number.map(Int64.init))
    }

    private mutating func add(_ number: Int64?) {
        guard let number else { return byte(0) }
        byte(2)
        var bits = UInt64(bitPattern: number)
        for _ in 0..<8 {
            byte(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }
}
