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
    private var words = WordHash()

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
            // Fields added later are hashed only when they are there, so an episode
            // without them keeps the hash it was stored with (no library-wide rewrite).
            if enclosure.bitrate != nil || enclosure.title != nil {
                hash.add(enclosure.bitrate)
                hash.add(enclosure.title)
            }
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
        if episode.seasonName != nil || !episode.soundbites.isEmpty {
            hash.add(episode.seasonName)
            hash.add(episode.soundbites.count)
            for soundbite in episode.soundbites {
                hash.add(soundbite.start)
                hash.add(soundbite.duration)
                hash.add(soundbite.title)
            }
        }
        return Int64(bitPattern: hash.words.value)
    }

    private mutating func byte(_ value: UInt8) { words.word(UInt64(value)) }

    private mutating func add(_ text: String?) {
        guard var text else { return byte(0) }
        byte(1)
        text.withUTF8 { words.bytes(UnsafeRawBufferPointer($0)) }
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
