/// Shortens long silences, from the level meter's peaks, and counts the
/// listening time that saves.
///
/// The meter sits ahead of the audio sink's queue, so it reads the media
/// about a second before it is heard (more while sped up). That lead is
/// used: once a stretch under `threshold` is known to end (the meter has
/// heard sound again), playback jumps over it, keeping `pause` of it; while
/// its end is not known yet, it plays `boost` times faster. Either way a
/// speaker's short pause (under `minimumSilence`) stays as it is, and the
/// position, chapters, progress and seeks stay in the file's own time.
struct SilenceTrimmer: Sendable, Equatable {
    /// Peaks below this (dBFS) are silence.
    static let threshold = -45.0
    /// How long a silence plays before it is shortened.
    static let minimumSilence: Duration = .milliseconds(400)
    /// How much of a silence is kept before the sound comes back.
    static let pause: Duration = .milliseconds(250)
    /// How much faster a silence whose end is not known yet plays.
    static let boost = 8.0
    /// The meter's interval.
    static let interval: Duration = .milliseconds(50)
    /// Silent stretches kept ahead of the position at most.
    static let maximumSpans = 64

    /// What the player should do.
    enum Action: Equatable {
        /// Play faster (a silence whose end is not known yet).
        case speedUp
        /// Go on from `to` at the plain rate (the end of a silence, or here).
        case resume(at: Duration)
    }

    /// Where (media time) the quiet stretch the meter is in began.
    private var quietSince: Duration?
    /// Quiet stretches the meter has heard end, not yet played past.
    private var spans: [Range<Duration>] = []
    /// Where playback was sped up, while it is.
    private(set) var boostedSince: Duration?
    /// Listening seconds saved in this episode (at rate 1).
    private(set) var savedSeconds = 0.0

    /// Takes one reading (the interval of media ending at `end`) and the
    /// position being heard; returns what to do, if anything.
    mutating func observe(peak: Double, end: Duration, position: Duration) -> Action? {
        let start = end - Self.interval
        if peak < Self.threshold {
            if quietSince == nil { quietSince = start }
        } else if let since = quietSince {
            quietSince = nil
            if start - since >= Self.minimumSilence + Self.pause {
                spans.append(since..<start)
                if spans.count > Self.maximumSpans { spans.removeFirst() }
            }
        }
        spans.removeAll { $0.upperBound <= position }
        return decide(at: position)
    }

    private mutating func decide(at position: Duration) -> Action? {
        if let span = spans.first(where: { $0.contains(position) }), position >= span.lowerBound + Self.minimumSilence {
            let target = span.upperBound - Self.pause
            if target > position + .milliseconds(100) || boostedSince != nil {
                account(until: position, jumpingTo: max(target, position))
                return .resume(at: max(target, position))
            }
            return nil
        }
        if boostedSince == nil, let since = quietSince, position >= since + Self.minimumSilence {
            boostedSince = position
            return .speedUp
        }
        if boostedSince != nil, quietSince == nil, !spans.contains(where: { $0.contains(position) }) {
            account(until: position, jumpingTo: position)  // sound ahead, but no silence worth skipping to it
            return .resume(at: position)
        }
        return nil
    }

    /// Adds what was saved: the sped-up part (played in 1/`boost` of its
    /// time) and the jump.
    private mutating func account(until position: Duration, jumpingTo target: Duration) {
        if let since = boostedSince, position > since {
            savedSeconds += (position - since) / .seconds(1) * (1 - 1 / Self.boost)
        }
        if target > position { savedSeconds += (target - position) / .seconds(1) }
        boostedSince = nil
    }

    /// The listener moved or playback stopped: what the meter heard ahead no longer applies.
    mutating func interrupt(at position: Duration?) {
        if let position { account(until: position, jumpingTo: position) }
        boostedSince = nil
        quietSince = nil
        spans.removeAll()
    }

    /// A new episode: nothing saved yet.
    mutating func reset() { self = SilenceTrimmer() }
}
