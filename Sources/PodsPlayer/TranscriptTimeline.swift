import PodsChapters
/// A timed line of the loaded track's transcript.
public struct TranscriptLine: Sendable, Equatable {
    /// Seconds into the track.
    public var start: Double
    /// Seconds; nil: until the next line.
    public var end: Double?
    public var text: String

    public init(start: Double, end: Double?, text: String) {
        (self.start, self.end, self.text) = (start, end, text)
    }
}

/// The transcript line playing (`PlayerState.cue`): MPRIS `Metadata` carries
/// it as `pods:cue`, and `lyrics` as `xesam:asText`.
public struct PlayingCue: Sendable, Equatable {
    /// From 1, in the transcript's order.
    public var index: Int
    public var text: String
    /// Seconds into the track.
    public var start: Double
    /// The lines around it as LRC (`[mm:ss.xx]text`), two before and three after.
    public var lyrics: String
}

/// The loaded track's timed transcript: which line plays at a moment, and
/// when the next begins or ends.
struct TranscriptTimeline {
    /// Timed lines in order of their start; untimed ones are left out.
    let lines: [TranscriptLine]
    /// A line shown longer than this is cut (MPRIS clients draw one line).
    static let longestLine = 500
    /// Lines kept at most (a transcript past it plays without the rest).
    static let mostLines = 100_000

    init(_ lines: [TranscriptLine] = []) {
        self.lines = lines.lazy
            .filter { EpisodeChapter.checkedSeconds($0.start) != nil && !$0.text.isEmpty }
            .prefix(Self.mostLines)
            .map { line in
                let end = EpisodeChapter.checkedSeconds(line.end).flatMap { $0 > line.start ? $0 : nil }
                return TranscriptLine(start: line.start, end: end, text: String(line.text.prefix(Self.longestLine)))
            }
            .sorted { $0.start < $1.start }
    }

    var isEmpty: Bool { lines.isEmpty }

    /// The line playing at `seconds`: the last to start by then, unless it has ended.
    func index(at seconds: Double) -> Int? {
        let following = firstStarting(after: seconds)
        guard following > 0 else { return nil }
        if let end = lines[following - 1].end, seconds >= end { return nil }
        return following - 1
    }

    /// The next moment after `seconds` at which the line playing changes.
    func nextChange(after seconds: Double) -> Double? {
        let following = firstStarting(after: seconds)
        var next = following < lines.count ? lines[following].start : nil
        if following > 0, let end = lines[following - 1].end, end > seconds { next = min(next ?? end, end) }
        return next
    }

    /// The index of the first line starting after `seconds` (`lines.count` when none does).
    private func firstStarting(after seconds: Double) -> Int {
        var low = 0, high = lines.count
        while low < high {
            let middle = (low + high) / 2
            if lines[middle].start <= seconds { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The cue for line `index`.
    func cue(_ index: Int) -> PlayingCue {
        let window = lines[max(0, index - 2)..<min(lines.count, index + 4)]
        let lyrics = window.map { line in
            let centiseconds = Int((line.start * 100).rounded(.down))
            let minutes = centiseconds / 6000, rest = centiseconds % 6000
            let flat = line.text.split(whereSeparator: \.isNewline).joined(separator: " ")
            return "[\(minutes < 10 ? "0" : "")\(minutes):\(rest / 100 < 10 ? "0" : "")\(rest / 100).\(rest % 100 < 10 ? "0" : "")\(rest % 100)]\(flat)"
        }.joined(separator: "\n")
        return PlayingCue(index: index + 1, text: lines[index].text, start: lines[index].start, lyrics: lyrics)
    }
}
