import PodsChapters

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
struct ChapterTimeline: Sendable, Equatable {
    /// Every chapter, silent ones too, by start.
    let chapters: [EpisodeChapter]
    /// The jump points, by start.
    let jumps: [EpisodeChapter]

    /// A position this close before a chapter's start counts as in it (a
    /// seek to a start may land a few milliseconds short).
    static let startSlack = 0.05

    init(_ chapters: [EpisodeChapter] = []) {
        self.chapters = chapters.sorted { $0.start < $1.start }
        self.jumps = self.chapters.filter(\.toc)
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

    /// Where the next jump point starts.
    func nextStart(after position: Double) -> Double? {
        let next = (jumpIndex(at: position) ?? -1) + 1
        return next < jumps.count ? jumps[next].start : nil
    }

    /// Where "previous" goes: the start of this chapter when more than
    /// `restartAfter` seconds into it, else the previous chapter's start;
    /// nil at the first chapter's start.
    func previousStart(from position: Double, restartAfter: Double) -> Double? {
        guard let index = jumpIndex(at: position) else { return nil }
        if position - jumps[index].start > restartAfter { return jumps[index].start }
        return index > 0 ? jumps[index - 1].start : nil
    }

    /// Jump point `number` (from 1).
    func start(ofChapter number: Int) -> Double? {
        jumps.indices.contains(number - 1) ? jumps[number - 1].start : nil
    }
}
