@testable import PodsPlayer
import Testing

/// Which transcript line plays when, and what MPRIS shows of it.
struct TranscriptTimelineTests {
    static let lines = [
        TranscriptLine(start: 4, end: 6, text: "Third"),
        TranscriptLine(start: 0, end: 2, text: "First"),
        TranscriptLine(start: 2, end: nil, text: "Second\nwrapped"),
        TranscriptLine(start: 10, end: 12, text: "After a gap"),
    ]

    @Test func theLinePlayingAndWhenItChanges() {
        let timeline = TranscriptTimeline(Self.lines)
        #expect(timeline.lines.map(\.text) == ["First", "Second\nwrapped", "Third", "After a gap"])
        #expect(timeline.index(at: 0) == 0 && timeline.index(at: 1.99) == 0)
        #expect(timeline.index(at: 2) == 1 && timeline.index(at: 3.9) == 1)  // no end: until the next
        #expect(timeline.index(at: 5) == 2)
        #expect(timeline.index(at: 7) == nil)  // the third ended at 6: nothing in the gap
        #expect(timeline.index(at: 11) == 3 && timeline.index(at: 12) == nil)
        #expect(timeline.nextChange(after: 0.5) == 2)
        #expect(timeline.nextChange(after: 5) == 6)  // its end comes before the next start
        #expect(timeline.nextChange(after: 7) == 10)
        #expect(timeline.nextChange(after: 11) == 12)
        #expect(timeline.nextChange(after: 12) == nil)
        #expect(TranscriptTimeline().index(at: 1) == nil)
    }

    @Test func theLyricsAreLRCAroundTheLine() {
        let timeline = TranscriptTimeline(Self.lines)
        let cue = timeline.cue(1)
        #expect(cue.index == 2 && cue.text == "Second\nwrapped" && cue.start == 2)
        #expect(cue.lyrics == "[00:00.00]First\n[00:02.00]Second wrapped\n[00:04.00]Third\n[00:10.00]After a gap")
        let late = TranscriptTimeline([TranscriptLine(start: 3723.456, end: nil, text: "Late")]).cue(0)
        #expect(late.lyrics == "[62:03.45]Late")
    }

    /// Times a feed's file cannot mean are left out; an end before the start is none.
    @Test func badTimesAreLeftOutAndLongLinesCut() {
        let timeline = TranscriptTimeline([
            TranscriptLine(start: .nan, end: 1, text: "nan"), TranscriptLine(start: -1, end: 1, text: "negative"),
            TranscriptLine(start: .infinity, end: nil, text: "infinite"), TranscriptLine(start: 1, end: 0.5, text: "backwards"),
            TranscriptLine(start: 2, end: nil, text: ""), TranscriptLine(start: 3, end: .nan, text: String(repeating: "x", count: 9000)),
        ])
        #expect(timeline.lines.map(\.start) == [1, 3])
        #expect(timeline.lines[0].end == nil && timeline.lines[1].end == nil)
        #expect(timeline.lines[1].text.count == TranscriptTimeline.longestLine)
    }
}
