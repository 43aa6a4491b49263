import PodsDBus
/// A span of listening as `12:34:56`: hours without bound (a log of years
/// holds thousands), `-0:01:00` for time lost below 1×. (`MediaSeconds.clock`
/// is for times within an episode, which stop at 10,000,000 s.)
public enum ListeningTime {
    public static func text(_ seconds: Double?) -> String {
        let value = seconds.flatMap { $0.isFinite ? $0 : nil } ?? 0
        let whole = Int(min(abs(value), 1e12).rounded())
        let twoDigits = { (number: Int) in number < 10 ? "0\(number)" : "\(number)" }
        let text = "\(whole / 3600):\(twoDigits(whole / 60 % 60)):\(twoDigits(whole % 60))"
        return value < 0 && whole > 0 ? "-" + text : text
    }
}

/// `ListeningStats` read into its figures: the whole, each podcast (most
/// heard first) and each week (oldest first).
public struct ListeningSummary: Sendable {
    public struct Share: Sendable {
        public var name: String
        public var seconds: Double
        public var saved: Double
    }

    public var seconds: Double = 0
    public var sessions: Int64 = 0
    public var savedBySpeed: Double = 0
    public var savedByTrimming: Double = 0
    public var podcasts: [Share] = []
    public var weeks: [Share] = []
}

extension Items {
    public static func listening(_ value: DBusValue) -> ListeningSummary { listening(fields(value)) }

    public static func listening(_ stats: [String: DBusValue]) -> ListeningSummary {
        func shares(_ key: String) -> [ListeningSummary.Share] {
            (stats[key]?.arrayValue ?? []).map(fields).map {
                .init(name: $0["name"]?.stringValue ?? "", seconds: $0["seconds"]?.doubleValue ?? 0, saved: $0["saved"]?.doubleValue ?? 0)
            }
        }
        return ListeningSummary(seconds: stats["seconds"]?.doubleValue ?? 0, sessions: stats["sessions"]?.int64Value ?? 0,
                                savedBySpeed: stats["savedBySpeed"]?.doubleValue ?? 0,
                                savedByTrimming: stats["savedByTrimming"]?.doubleValue ?? 0,
                                podcasts: shares("podcasts"), weeks: shares("weeks"))
    }
}
