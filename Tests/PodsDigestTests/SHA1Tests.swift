import PodsDigest
import Testing

/// SHA-1 through libcrypto, against RFC 3174's and FIPS 180's test vectors.
@Suite(.timeLimit(.minutes(10))) struct SHA1Tests {
    @Test func knownDigests() {
        #expect(SHA1.hex("".utf8) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(SHA1.hex("abc".utf8) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(SHA1.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(SHA1.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }
}
