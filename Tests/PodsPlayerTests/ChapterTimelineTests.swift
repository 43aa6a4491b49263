import PodsChapters
@testable import PodsPlayer
import PodsSettings
import Testing

/// Which chapters `skip-chapters` skips, and where Next and Previous go around them.
@Suite struct ChapterTimelineTests {
    private static func timeline(_ titles: [(Double, String)], skipping pattern: String?) throws -> ChapterTimeline {
        ChapterTimeline(titles.map { EpisodeChapter(start: $0.0, title: $0.1, source: .json) },
                        skipping: try pattern.map { try TitlePattern($0) })
    }

    @Test func chaptersThatFollowOneAnotherAreOneStretch() throws {
        let timeline = try Self.timeline([(0, "Intro"), (600, "SPONSOR: Acme"), (630, "Ad break"), (660, "Main"), (900, "ad")],
                                         skipping: "^(ad|sponsor)")
        #expect(timeline.skippedJumps == [1, 2, 4])
        #expect(timeline.skipped == [.init(start: 600, end: 660), .init(start: 900, end: nil)])
        #expect(timeline.skippedStretch(enteredAt: 600.4, within: 1) == .init(start: 600, end: 660))
        #expect(timeline.skippedStretch(enteredAt: 620, within: 1) == nil)  // deep inside: the listener's choice
        #expect(timeline.skippedStretch(containing: 620) == .init(start: 600, end: 660))
        #expect(timeline.nextSkipped(after: 601)?.start == 900)
        // Next from 550 goes to 660; Previous just after 660 goes to the chapter before the skipped ones.
        #expect(timeline.nextStart(after: 550) == 660)
        #expect(timeline.previousStart(from: 661, restartAfter: 3) == 0)
        #expect(timeline.previousStart(from: 670, restartAfter: 3) == 660)
        #expect(timeline.nextStart(after: 700) == nil)  // only a skipped one is left
    }

    @Test func noPatternSkipsNothing() throws {
        let timeline = try Self.timeline([(0, "Intro"), (600, "Sponsor")], skipping: nil)
        #expect(timeline.skipped.isEmpty && timeline.nextStart(after: 10) == 600)
        #expect(throws: SettingsError.self) { try TitlePattern("(sponsor") }
        #expect(throws: SettingsError.self) { try TitlePattern(String(repeating: "a", count: TitlePattern.maximumLength + 1)) }
        // Matched anywhere, without regard to case; only a title's first characters are read.
        let matches = try TitlePattern("sponsor").matcher()
        #expect(matches("Our SPONSORS") && !matches("Main"))
        #expect(!matches(String(repeating: "x", count: TitlePattern.readLength) + "sponsor"))
    }
}
