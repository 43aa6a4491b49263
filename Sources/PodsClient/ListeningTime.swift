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
