/// A fast, stable 64-bit hash that takes bytes eight at a time (a multiply
/// and a shift per word). Stable across processes and runs, unlike Swift's
/// `Hasher`, so its values can be stored: the library's content hashes and
/// a feed's item fingerprints (`ItemFingerprint`) are made with it.
public struct WordHash: Sendable {
    public private(set) var value: UInt64

    public init(seed: UInt64 = 0xcbf2_9ce4_8422_2325) { value = seed }

    @inline(__always)
    public mutating func word(_ word: UInt64) {
        value = (value ^ word) &* 0x9E37_79B9_7F4A_7C15
        value ^= value >> 29
    }

    /// The bytes, eight at a time (the last few packed into one word), then
    /// their count (so "ab" + "" differs from "a" + "b").
    public mutating func bytes(_ raw: UnsafeRawBufferPointer) {
        var stream = Streaming(self)
        stream.add(raw)
        self = stream.finished()
    }
}

extension WordHash {
    /// `WordHash.bytes` over bytes that come in pieces: the same value as
    /// if they had come at once (`bytes` is this over one piece).
    struct Streaming {
        private var hash: WordHash
        private var tail: UInt64 = 0
        private var tailCount = 0
        private var count = 0

        init(_ hash: WordHash) { self.hash = hash }

        mutating func add(_ raw: UnsafeRawBufferPointer) {
            var index = 0
            count += raw.count
            while tailCount > 0, index < raw.count {  // complete the word begun before
                tail |= UInt64(raw[index]) << (8 * UInt64(tailCount))
                tailCount += 1
                index += 1
                if tailCount == 8 {
                    hash.word(tail)
                    tail = 0
                    tailCount = 0
                }
            }
            while index + 8 <= raw.count {
                hash.word(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
                index += 8
            }
            while index < raw.count {
                tail |= UInt64(raw[index]) << (8 * UInt64(tailCount))
                tailCount += 1
                index += 1
            }
        }

        /// The hash with the bytes' last word and their count added.
        func finished() -> WordHash {
            var done = hash
            done.word(tail)
            done.word(UInt64(count))
            return done
        }

        func finish() -> UInt64 { finished().value }
    }
}
