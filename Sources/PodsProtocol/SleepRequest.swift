/// What `pods sleep` asks for: `30m`, `90s`, `1h`, `1h30m`, `end` (of the
/// episode), `chapter` (its end) or `off`. Shared by `pods`, which checks
/// it before calling, and podsd, which takes the same text over D-Bus.
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

    /// `1h30m`, `45m`, `90s`: numbers each followed by h, m or s.
    private static func duration(_ text: String) -> Double? {
        var total = 0.0
        var number = ""
        for character in text {
            if character.isNumber || character == "." {
                number.append(character)
                continue
            }
            guard let value = Double(number), value.isFinite else { return nil }
            switch character {
            case "h": total += value * 3600
            case "m": total += value * 60
            case "s": total += value
            default: return nil
            }
            number = ""
        }
        return number.isEmpty && !text.isEmpty ? total : nil
    }

    /// Why a sleep request was refused; one line.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let text: String
        public var description: String {
            "a sleep timer is a time from 1s to 24h (such as 30m, 90s or 1h30m), end, chapter or off; not '\(text)'"
        }
    }
}
