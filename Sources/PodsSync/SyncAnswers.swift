import Foundation

/// Why a sync failed; `message` is one line for the user.
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// Subscription changes since a timestamp.
public struct SubscriptionChanges: Sendable, Equatable {
    public var add: [String]
    public var remove: [String]
    /// The server's timestamp to ask from next time.
    public var timestamp: Int64
}

/// What an upload's answer says.
public struct UploadAnswer: Sendable, Equatable {
    public var timestamp: Int64?
    /// gpodder.net's `update_urls`: the URL sent, and the one the server keeps
    /// (`""` for one it refused).
    public var updatedURLs: [(old: String, new: String)]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.timestamp == rhs.timestamp && lhs.updatedURLs.map { [$0.old, $0.new] } == rhs.updatedURLs.map { [$0.old, $0.new] }
    }
}

/// A page of actions since a timestamp.
public struct ActionPage: Sendable {
    public var actions: [EpisodeAction]
    /// Actions in the answer that Pods cannot use (unknown kinds, broken fields).
    public var unusable: Int
    /// How many the answer held, usable or not (gpodder.net pages at 1000).
    public var count: Int
    public var timestamp: Int64
}

/// Reads the servers' answers leniently where the servers differ, and says
/// in one line what is wrong when an answer is not a sync server's at all.
public enum SyncAnswers {
    public static func subscriptionChanges(_ body: Data, from server: String) throws(SyncError) -> SubscriptionChanges {
        let object = try jsonObject(body, from: server)
        guard let timestamp = integer(object["timestamp"]) else { throw notSync(server, "its answer has no timestamp") }
        return SubscriptionChanges(add: urls(object["add"]), remove: urls(object["remove"]), timestamp: timestamp)
    }

    public static func upload(_ body: Data, from server: String) throws(SyncError) -> UploadAnswer {
        // Some servers answer an upload with an empty body.
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return UploadAnswer(timestamp: nil, updatedURLs: []) }
        let object = try jsonObject(body, from: server)
        let pairs = (object["update_urls"] as? [Any] ?? []).compactMap { entry -> (String, String)? in
            guard let pair = entry as? [Any], pair.count == 2, let old = pair[0] as? String, let new = pair[1] as? String else { return nil }
            return (old, new)
        }
        return UploadAnswer(timestamp: integer(object["timestamp"]), updatedURLs: pairs)
    }

    public static func actions(_ body: Data, from server: String) throws(SyncError) -> ActionPage {
        let object = try jsonObject(body, from: server)
        guard let list = object["actions"] as? [Any] else { throw notSync(server, "its answer has no actions") }
        guard let timestamp = integer(object["timestamp"]) else { throw notSync(server, "its answer has no timestamp") }
        let actions = list.compactMap { ($0 as? [String: Any]).flatMap(EpisodeAction.init(json:)) }
        return ActionPage(actions: actions, unusable: list.count - actions.count, count: list.count, timestamp: timestamp)
    }

    // MARK: - Pieces

    private static func jsonObject(_ body: Data, from server: String) throws(SyncError) -> [String: Any] {
        let start = body.prefix(512).drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        if start.first == UInt8(ascii: "<") { throw notSync(server, "it answered with a web page") }
        guard let parsed = try? JSONSerialization.jsonObject(with: body) else { throw notSync(server, "its answer is not JSON") }
        guard let object = parsed as? [String: Any] else { throw notSync(server, "its answer is not a JSON object") }
        return object
    }

    private static func notSync(_ server: String, _ why: String) -> SyncError {
        SyncError("\(server) is not a gpodder.net or Nextcloud GPodder Sync server: \(why)")
    }

    /// Unix seconds, as a number or a numeric string.
    static func integer(_ value: Any?) -> Int64? {
        if value is Bool { return nil }
        if let number = value as? NSNumber, number.doubleValue.isFinite, abs(number.doubleValue) < 1e12 { return Int64(number.doubleValue) }
        if let text = value as? String, let number = Double(text), number.isFinite, abs(number) < 1e12 { return Int64(number) }
        return nil
    }

    /// http(s) URLs only, with gpodder's `%3A` undone as AntennaPod does.
    private static func urls(_ value: Any?) -> [String] {
        (value as? [Any] ?? []).compactMap { $0 as? String }.map { $0.replacingOccurrences(of: "%3A", with: ":") }
            .filter { $0.hasPrefix("http://") || $0.hasPrefix("https://") }
    }

    /// The server's clock from an HTTP `Date` header (RFC 7231's IMF-fixdate).
    public static func httpDate(_ text: String?) -> Date? {
        guard let text else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
