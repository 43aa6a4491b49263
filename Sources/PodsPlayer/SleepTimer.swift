/// The sleep timer's accounting: when playback should pause, in wall time
/// from now. A timer in minutes counts playing time only, so pausing by
/// hand keeps what is left; the others follow the position.
struct SleepTimer: Sendable, Equatable {
    enum Mode: String, Sendable {
        case time, episode, chapter
    }

    let mode: Mode
    /// `time`: playing time left, as of `runningSince` (or now, when paused).
    private var left: Duration
    private var runningSince: ContinuousClock.Instant?
    /// `chapter`: where the chapter that was playing ends (set again after a jump).
    var chapterEnd: Duration?

    /// The fade to silence before the pause.
    static let fade: Duration = .seconds(10)

    static func time(_ duration: Duration, playing: Bool) -> SleepTimer {
        SleepTimer(mode: .time, left: duration, runningSince: playing ? .now : nil)
    }

    static let endOfEpisode = SleepTimer(mode: .episode, left: .zero, runningSince: nil)

    static func endOfChapter(at end: Duration?) -> SleepTimer {
        SleepTimer(mode: .chapter, left: .zero, runningSince: nil, chapterEnd: end)
    }

    /// Playing started or stopped: a `time` timer runs only while playing.
    mutating func setPlaying(_ playing: Bool, at now: ContinuousClock.Instant = .now) {
        guard mode == .time else { return }
        if let runningSince, !playing {
            left -= now - runningSince
            self.runningSince = nil
        } else if runningSince == nil, playing {
            runningSince = now
        }
    }

    /// Wall time until the pause; `positionLeft` is the media time to the
    /// end of the episode or chapter (nil: unknown), played at `rate`.
    func untilPause(positionLeft: Duration?, rate: Double, at now: ContinuousClock.Instant = .now) -> Duration? {
        switch mode {
        case .time: left - (runningSince.map { now - $0 } ?? .zero)
        case .episode, .chapter: positionLeft.map { $0 / max(rate, 0.01) }
        }
    }
}
