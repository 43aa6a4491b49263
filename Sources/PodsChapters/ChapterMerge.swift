/// Makes one chapter list of an episode from the lists its sources give.
///
/// The rule (after AntennaPod's `ChapterMerger`, extended to more than two
/// sources): the sources are taken in the order JSON, PSC, then the media
/// file's own (ID3, MP4, Vorbis), and folded pairwise over their jump
/// points (chapters with `toc` true):
/// 1. the list with more chapters wins;
/// 2. lists of equal length whose starts all lie within a second of each
///    other are one list: the earlier source's entries, with a title, link
///    or image it lacks taken from the other;
/// 3. otherwise the list with more titles, links and images wins (the
///    earlier source on a tie).
/// Silent chapters (JSON `toc: false`) are art and metadata only: they
/// never take part in the contest and are added back to the result.
/// Each chapter without an end ends where the next jump point starts, and
/// the last one at the episode's end when that is known, else where any
/// source said the last chapter ends.
public enum ChapterMerge {
    /// The order in which sources are preferred.
    public static let preference: [ChapterSource] = [.json, .psc, .id3, .mp4, .vorbis]

    /// How far apart two starts may be and still be the same chapter.
    static let sameStart = 1.0

    public static func merge(_ lists: [[EpisodeChapter]], duration: Double? = nil) -> [EpisodeChapter] {
        // Times no episode has (stored by an older Pods, or from any source) are dropped here too.
        let ordered = lists.map { $0.filter(\.hasTimesInRange) }.filter { !$0.isEmpty }.sorted { rank($0) < rank($1) }
        let duration = EpisodeChapter.checkedSeconds(duration)
        var result: [EpisodeChapter] = []
        var silent: [EpisodeChapter] = []
        for list in ordered {
            let sorted = list.sorted { $0.start < $1.start }
            silent += sorted.filter { !$0.toc }
            result = result.isEmpty ? sorted.filter(\.toc) : fold(result, sorted.filter(\.toc))
        }
        let lastEnd = ordered.compactMap { $0.filter(\.toc).max { $0.start < $1.start }?.end }.max()
        return withEnds((result + silent).sorted { $0.start < $1.start }, duration: duration ?? lastEnd)
    }

    private static func rank(_ list: [EpisodeChapter]) -> Int {
        list.first.flatMap { preference.firstIndex(of: $0.source) } ?? preference.count
    }

    static func fold(_ preferred: [EpisodeChapter], _ other: [EpisodeChapter]) -> [EpisodeChapter] {
        if other.count != preferred.count { return other.count > preferred.count ? other : preferred }
        if zip(preferred, other).allSatisfy({ abs($0.start - $1.start) <= sameStart }) {
            return zip(preferred, other).map { mine, theirs in
                var chapter = mine
                if chapter.title.isEmpty { chapter.title = theirs.title }
                if chapter.url == nil { chapter.url = theirs.url }
                if chapter.image == nil && chapter.embeddedImage == nil {
                    chapter.image = theirs.image
                    chapter.embeddedImage = theirs.embeddedImage
                }
                return chapter
            }
        }
        return richness(other) > richness(preferred) ? other : preferred
    }

    private static func richness(_ list: [EpisodeChapter]) -> Int {
        list.reduce(0) { total, chapter in
            total + (chapter.title.isEmpty ? 0 : 1) + (chapter.url == nil ? 0 : 1)
                + (chapter.image == nil && chapter.embeddedImage == nil ? 0 : 1)
        }
    }

    /// Fills missing ends from the next jump point's start (or `duration`).
    static func withEnds(_ chapters: [EpisodeChapter], duration: Double?) -> [EpisodeChapter] {
        let jumpStarts = chapters.filter(\.toc).map(\.start)
        return chapters.map { chapter in
            var chapter = chapter
            if chapter.end == nil {
                chapter.end = jumpStarts.first { $0 > chapter.start } ?? duration.flatMap { $0 > chapter.start ? $0 : nil }
            }
            return chapter
        }
    }
}
