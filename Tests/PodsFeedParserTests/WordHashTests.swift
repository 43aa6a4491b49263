import Foundation
@testable import PodsFeedParser
import Testing

/// The library stores these hashes: their values must never change, and
/// bytes that come in pieces hash as if they came at once.
@Suite(.timeLimit(.minutes(10))) struct WordHashTests {
    static let text = Array("Episode 12: a title of some length, with notes é and more".utf8)

    @Test func valuesStayAsStored() {
        var hash = WordHash()
        Self.text.withUnsafeBytes { hash.bytes($0) }
        #expect(hash.value == 487_626_317_456_061_385)  // as session 6 stored it
    }

    @Test func piecesHashAsTheWhole() {
        var whole = WordHash(seed: 42)
        Self.text.withUnsafeBytes { whole.bytes($0) }
        for cut in [0, 1, 7, 8, 9, 17, Self.text.count] {
            for second in [cut, min(cut + 3, Self.text.count), Self.text.count] {
                var pieces = WordHash.Streaming(WordHash(seed: 42))
                Self.text.withUnsafeBytes { raw in
                    pieces.add(UnsafeRawBufferPointer(rebasing: raw[0..<cut]))
                    pieces.add(UnsafeRawBufferPointer(rebasing: raw[cut..<second]))
                    pieces.add(UnsafeRawBufferPointer(rebasing: raw[second...]))
                }
                #expect(pieces.finish() == whole.value, "cut at \(cut) and \(second)")
            }
        }
    }
}
