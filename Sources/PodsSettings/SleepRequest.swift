/// What `pods sleep` asks for: `30m`, `90s`, `1h`, `1h30m`, `end` (of the
/// episode), `chapter` (its end) or `off`. Shared by `pods`, which checks
/// it before calling, and podsd, which takes the same text over D-Bus; its
/// times are read as the settings' are (`UnitTime`).
public enum SleepRequest: Sendable, Equatable {
    /// Pause after this many seconds of playing.
    case time(seconds: Double)
    case endOfEpisode
    case endOfChapter
    case off

    /// The longest timer: a day.
    public static let longest = 24.0 * 3600

    public init(_ text: String) throws(SleepRequest.Invalid) {
        let word = text.lowercased().filter { !$0.isWhitespace }
        switch word {
        case "end", "episode": self = .endOfEpisode
        case "chapter": self = .endOfChapter
        case "off", "cancel": self = .off
        default:
            guard let seconds = Self.duration(word), seconds > 0, seconds <= Self.longest else {
                throw Invalid(text: String(text.prefix(40)))
            }
            self = .time(seconds: seconds)
        }
    }

    /// `1h30m`, `45m`, `90s`: numbers each followed by h, m or s (a plain number is no timer).
    private static func duration(_ text: String) -> Double? {
        UnitTime.seconds(text, units: ["h": 3600, "m": 60, "s": 1])
    }

    /// Why a sleep request was refused; one line.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let text: String
        public var description: String {
            "a sleep timer is a time from 1s to 24h (such as 30m, 90s or 1h30m), end, chapter or off; not '\(text)'"
        }
    }
}
