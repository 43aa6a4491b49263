extension Duration {
    /// `seconds` as a duration, never a trap: a time read back from the
    /// library, a setting or a peer may be anything an older or hostile
    /// writer left (1e300, NaN, −1), and `Int64(1e300 * 1000)` traps. Not
    /// finite or below zero is zero; past `EpisodeChapter.maximumSeconds` is
    /// that. Every conversion of such seconds to a `Duration` goes through here.
    public static func mediaSeconds(_ seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .milliseconds(Int64(Swift.min(seconds, EpisodeChapter.maximumSeconds) * 1000))
    }
}
