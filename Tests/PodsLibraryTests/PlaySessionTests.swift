import Foundation
import PodsLibrary
import PodsTestSupport
import Testing

/// The listening log in the library: what a play session keeps, what is
/// refused, and how `pods stats` adds them up (heard, saved by speed and
/// by trimmed silence, by podcast and by week).
@Suite struct PlaySessionTests {
    private static func session(_ startedAt: Double, podcast: Int64 = 1, seconds: Double, from: Double, to: Double,
                                rate: Double = 1) -> PlaySession {
        PlaySession(episodeId: podcast * 10, podcastId: podcast, episodeTitle: "Episode", podcastTitle: "Show \(podcast)",
                    startedAt: Date(timeIntervalSince1970: startedAt), seconds: seconds, from: from, to: to, rate: rate)
    }

    @Test func statsAddUpHeardAndSaved() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        // Monday 2026-11-23 and the week before, at noon UTC (a local Monday's week in any zone but the far ones).
        let monday = 1_795_435_200.0
        try library.keepPlaySession(Self.session(monday, seconds: 100, from: 0, to: 100))
        // 100 s at 2× covers 200 s of the episode; 250 covered: 50 s of it trimmed, 25 s saved at 2×.
        try library.keepPlaySession(Self.session(monday + 3600, podcast: 2, seconds: 100, from: 0, to: 250, rate: 2))
        try library.keepPlaySession(Self.session(monday - 7 * 86400, podcast: 2, seconds: 40, from: 0, to: 40))
        let stats = try library.listeningStats(since: nil)
        #expect(stats.sessions == 3 && stats.seconds == 240)
        #expect(stats.savedBySpeed == 100 && stats.savedByTrimming == 25)
        #expect(stats.podcasts.map(\.name) == ["Show 2", "Show 1"] && stats.podcasts.map(\.seconds) == [140, 100])
        #expect(stats.podcasts.map(\.saved) == [125, 0] && stats.podcasts.map(\.podcastId) == [2, 1])
        #expect(stats.weeks.map(\.seconds) == [40, 200] && stats.weeks.count == 2)
        let recent = try library.listeningStats(since: Date(timeIntervalSince1970: monday - 60))
        #expect(recent.sessions == 2 && recent.weeks.count == 1)
        #expect(try library.playSessions(since: nil, limit: 10).map(\.seconds) == [40, 100, 100])
        #expect(try library.playSessions(since: nil, offset: 2, limit: 10).map(\.rate) == [2])
        let none = try library.listeningStats(since: Date(timeIntervalSince1970: 4e9))
        #expect(none.sessions == 0 && none.seconds == 0 && none.podcasts.isEmpty && none.weeks.isEmpty)
    }

    /// A stretch written again as it grows (the half-minute checkpoint) is one
    /// session; a write that arrives late never shortens it.
    @Test func aCheckpointedStretchIsOneSessionThatOnlyGrows() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        try library.keepPlaySession(Self.session(1000, seconds: 30, from: 5, to: 35))
        try library.keepPlaySession(Self.session(1000, seconds: 61, from: 5, to: 66))
        try library.keepPlaySession(Self.session(1000, seconds: 30, from: 5, to: 35))
        let kept = try library.playSessions(since: nil, limit: 10)
        #expect(kept.count == 1 && kept.first?.seconds == 61 && kept.first?.to == 66)
    }

    @Test func valuesNoStretchHasAreRefused() throws {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        for bad in [-1, .nan, .infinity, 1e23] {
            #expect(throws: LibraryError.self) { try library.keepPlaySession(Self.session(1, seconds: bad, from: 0, to: 1)) }
            #expect(throws: LibraryError.self) { try library.keepPlaySession(Self.session(2, seconds: 1, from: bad, to: 1)) }
            #expect(throws: LibraryError.self) { try library.keepPlaySession(Self.session(3, seconds: 1, from: 0, to: bad)) }
        }
        for rate in [0, -1, .nan, 17] {
            #expect(throws: LibraryError.self) { try library.keepPlaySession(Self.session(4, seconds: 1, from: 0, to: 1, rate: rate)) }
        }
        #expect(throws: LibraryError.self) { try library.keepPlaySession(Self.session(.infinity, seconds: 1, from: 0, to: 1)) }
        #expect(try library.playSessions(since: nil, limit: 10).isEmpty)
    }
}
