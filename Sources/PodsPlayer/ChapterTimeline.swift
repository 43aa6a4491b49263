import PodsChapters
import PodsSettings

/// The chapter playing now, as `pods status` and MPRIS show it.
public struct PlayingChapter: Sendable, Equatable {
    /// From 1, as `pods chapters` numbers them.
    public var index: Int
    public var title: String
    /// Seconds.
    public var start: Double
}

/// A track's chapters against a position: which chapter plays, which
/// image shows, and where chapter jumps land. Jump points are the chapters
/// in the table of contents; silent chapters only lend their image.
/// Chapters whose titles match the podcast's `skip-chapters` are skipped:
/// playing into one goes past it, `Next` and `Previous` step over it.
struct ChapterTimeline: Sendable, Equatable {
    /// Every chapter, silent ones too, by start.
    let chapters: [EpisodeChapter]
    /// The jump points, by start.
    let jumps: [EpisodeChapter]
    /// Which jump points are skipped (their indexes in `jumps`).
    let skippedJumps: Set<Int>
    /// Where skipped chapters lie, those that follow one another merged, by start.
    let skipped: [SkippedStretch]

    /// Skipped chapters from `start` to `end` (seconds; nil: the track's end).
    struct SkippedStretch: Sendable, Equatable {
        var start: Double
        var end: Double?
    }

    /// A position this close before a chapter's start counts as in it (a
    /// seek to a start may land a few milliseconds short).
    static let startSlack = 0.05

    init(_ chapters: [EpisodeChapter] = [], skipping pattern: TitlePattern? = nil) {
        // Times out of any episode's range (an older Pods' rows, a peer's) never become a Duration.
        self.chapters = chapters.filter(\.hasTimesInRange).sorted { $0.start < $1.start }
        let jumps = self.chapters.filter(\.toc)
        self.jumps = jumps
        let matches = pattern?.matcher()
        let skippedJumps = Set(jumps.indices.filter { matches?(jumps[$0].title) ?? false })
        self.skippedJumps = skippedJumps
        var skipped: [SkippedStretch] = []
        for index in jumps.indices where skippedJumps.contains(index) {
            if let last = skipped.last, skippedJumps.contains(index - 1), last.end == jumps[index].start {
                skipped[skipped.count - 1].end = index + 1 < jumps.count ? jumps[index + 1].start : jumps[index].end
            } else {
                skipped.append(SkippedStretch(start: jumps[index].start, end: index + 1 < jumps.count ? jumps[index + 1].start : jumps[index].end))
            }
        }
        self.skipped = skipped
    }

    /// The skipped stretch that `position` is in, at most `window` seconds after its start.
    func skippedStretch(enteredAt position: Double, within window: Double) -> SkippedStretch? {
        skipped.first { position >= $0.start - Self.startSlack && position < $0.start + window && position < ($0.end ?? .infinity) }
    }

    /// The skipped stretch `position` is anywhere in.
    func skippedStretch(containing position: Double) -> SkippedStretch? {
        skipped.first { position >= $0.start - Self.startSlack && position < ($0.end ?? .infinity) }
    }

    /// The first skipped stretch that starts after `position`.
    func nextSkipped(after position: Double) -> SkippedStretch? {
        skipped.first { $0.start > position }
    }

    var isEmpty: Bool { jumps.isEmpty }

    /// The index (from 0) of the jump point playing at `position`; nil before the first.
    func jumpIndex(at position: Double) -> Int? {
        jumps.lastIndex { $0.start <= position + Self.startSlack }
    }

    func current(at position: Double) -> PlayingChapter? {
        guard let index = jumpIndex(at: position) else { return nil }
        return PlayingChapter(index: index + 1, title: jumps[index].title, start: jumps[index].start)
    }

    /// The image of the latest chapter (silent ones too) that has one and
    /// covers `position`.
    func image(at position: Double) -> String? {
        chapters.last { chapter in
            chapter.image != nil && chapter.start <= position + Self.startSlack && (chapter.end.map { position < $0 } ?? true)
        }?.image
    }

    /// Where the next jump point starts (skipped ones stepped over).
    func nextStart(after position: Double) -> Double? {
        let next = (jumpIndex(at: position) ?? -1) + 1
        return (next..<max(next, jumps.count)).first { !skippedJumps.contains($0) }.map { jumps[$0].start }
    }

    /// Where "previous" goes: the start of this chapter when more than
    /// `restartAfter` seconds into it, else the previous chapter's start
    /// (skipped ones stepped over); nil at the first chapter's start.
    func previousStart(from position: Double, restartAfter: Double) -> Double? {
        guard let index = jumpIndex(at: position) else { return nil }
        if position - jumps[index].start > restartAfter { return jumps[index].start }
        return (0..<index).last { !skippedJumps.contains($0) }.map { jumps[$0].start }
    }

    /// Jump point `number` (from 1).
    func start(ofChapter number: Int) -> Double? {
        jumps.indices.contains(number - 1) ? jumps[number - 1].start : nil
    }
}
