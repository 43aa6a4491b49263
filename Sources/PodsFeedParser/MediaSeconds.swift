/// Seconds read from outside (a feed's `itunes:duration`, a chapter start,
/// a transcript cue, a synced position): checked here, where they are
/// parsed, before any of them becomes an `Int` or a `Duration`. A value
/// that is not finite, is negative or is larger than any episode is
/// dropped; converting `1e23` to an `Int` traps.
public enum MediaSeconds {
    /// The longest an episode may be: about 115 days (`PodsChapters`'
    /// `EpisodeChapter.maximumSeconds` is the same number).
    public static let maximum: Double = 10_000_000

    /// `value` when it is a time in an episode, else nil.
    public static func checked(_ value: Double?) -> Double? {
        guard let value, value.isFinite, value >= 0, value <= maximum else { return nil }
        return value
    }

    /// Whole seconds of a time in an episode, else nil: never a trap.
    public static func whole(_ value: Double?, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int? {
        checked(value).map { Int($0.rounded(rule)) }
    }

    /// `h:mm:ss` or `m:ss`, down to the second; a time outside the rules shows as 0:00, never a trap.
    public static func clock(_ value: Double?) -> String {
        let total = whole(value, rounding: .down) ?? 0
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        let twoDigits = { (number: Int) in number < 10 ? "0\(number)" : "\(number)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
    }
}
