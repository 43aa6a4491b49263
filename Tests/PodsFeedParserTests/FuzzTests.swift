import Foundation
import PodsFeedParser
import PodsTestSupport
import Testing

/// A bounded mutation fuzzer over the parser, seeded from the real feeds:
/// every input must parse or fail with a `FeedError`, within a second.
/// CI runs a short pass; `PODS_FUZZ_INPUTS=100000` runs a long one.
@Suite(.timeLimit(.minutes(10))) struct FuzzTests {
    typealias Random = SplitMix64

    static let tokens: [[UInt8]] = ["<", ">", "&", ";", "&amp;", "&nbsp;", "&#x0;", "&#99999999;", "<![CDATA[", "]]>", "<!--",
                                    "<item>", "</item>", "<enclosure url=\"", "\"", "\u{FEFF}", "<!DOCTYPE x [<!ENTITY a \"&a;\">]>",
                                    "xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"", "<itunes:duration>", ":::",
                                    "\u{0}", "\u{FFFF}"].map { Array($0.utf8) }

    static func mutate(_ seed: [UInt8], _ random: inout Random) -> [UInt8] {
        var bytes = seed
        for _ in 0...random.below(8) {
            guard !bytes.isEmpty else { break }
            let at = random.below(bytes.count)
            switch random.below(6) {
            case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())                      // flip a byte
            case 1: bytes.removeSubrange(at..<min(bytes.count, at + random.below(64)))       // delete a run
            case 2: bytes.insert(contentsOf: tokens[random.below(tokens.count)], at: at)     // insert markup
            case 3: bytes = Array(bytes.prefix(at))                                          // truncate
            case 4: let end = min(bytes.count, at + random.below(256))                       // duplicate a run
                    bytes.insert(contentsOf: bytes[at..<end], at: end)
            default: bytes.insert(UInt8(0x80 + random.below(0x80)), at: at)                  // stray high byte
            }
        }
        return bytes
    }

    @Test func mutatedFeedsNeverCrashOrHang() throws {
        let inputs = Int(ProcessInfo.processInfo.environment["PODS_FUZZ_INPUTS"] ?? "") ?? 1000
        let folder = Fixtures.sharedTestData.appendingPathComponent("feeds")
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".xml") || $0.hasSuffix(".rss") } ?? []
        let seeds = try files.sorted().map { Array(try Data(contentsOf: folder.appendingPathComponent($0))) }
            .filter { $0.count < 120_000 }  // small seeds keep many inputs per second (and debug builds well inside the bound)
        try #require(!seeds.isEmpty)
        var random = Random(state: 0x5EED)
        var slowest = Duration.zero
        var parsed = 0, rejected = 0
        for index in 0..<inputs {
            let input = Self.mutate(seeds[index % seeds.count], &random)
            let start = ContinuousClock.now
            do {
                _ = try FeedParser(sizeLimit: 4 << 20).parse(Data(input))
                parsed += 1
            } catch {
                rejected += 1  // a FeedError is a fine answer; anything else would not compile
            }
            let took = ContinuousClock.now - start
            slowest = max(slowest, took)
            #expect(took < .seconds(1), "input \(index) took \(took)")
        }
        print("fuzz: \(inputs) inputs, \(parsed) parsed, \(rejected) rejected, slowest \(slowest)")
        // Most mutations leave a feed that recover mode still reads: a parser
        // that rejects them wholesale has lost its tolerance.
        #expect(parsed > inputs / 2, "\(parsed) of \(inputs) mutated feeds parsed")
    }
}
