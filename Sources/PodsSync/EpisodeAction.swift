import Foundation

/// One episode action as gpodder.net API v2 and the Nextcloud GPodder Sync
/// app carry it (SYNC.md): what happened to which episode, and when.
public struct EpisodeAction: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case play, download, delete, new
    }

    /// The feed's URL.
    public var podcast: String
    /// The enclosure's URL.
    public var episode: String
    public var guid: String?
    public var kind: Kind
    public var timestamp: Date
    /// Whole seconds, for `play` only: where playback started and stopped, and the length.
    public var started: Int?
    public var position: Int?
    public var total: Int?
    /// gpodder.net's device id (Nextcloud has none).
    public var device: String?

    public init(podcast: String, episode: String, guid: String? = nil, kind: Kind, timestamp: Date,
                started: Int? = nil, position: Int? = nil, total: Int? = nil, device: String? = nil) {
        self.podcast = podcast
        self.episode = episode
        self.guid = guid
        self.kind = kind
        self.timestamp = timestamp
        self.started = started
        self.position = position
        self.total = total
        self.device = device
    }

    // MARK: - Sending

    /// The object to upload, in the form every server and AntennaPod accept:
    /// lower-case action, naive UTC timestamp, integer seconds, `guid` only when known.
    public var jsonObject: [String: Any] {
        var object: [String: Any] = [
            "podcast": podcast, "episode": episode, "action": kind.rawValue, "timestamp": SyncTimestamp.string(timestamp),
        ]
        if let guid, !guid.isEmpty { object["guid"] = guid }
        if let device { object["device"] = device }
        if kind == .play, let position, let total {
            object["started"] = started ?? 0
            object["position"] = position
            object["total"] = total
        }
        return object
    }

    // MARK: - Receiving

    /// An action as a server sends it, read leniently: upper-case actions,
    /// timestamps with or without a zone or fraction, missing guids, `-1`
    /// fields (none); nil for an action Pods cannot use (an unknown kind, a
    /// play without a usable position, no URLs).
    public init?(json: [String: Any]) {
        guard let podcast = json["podcast"] as? String, let episode = json["episode"] as? String, !episode.isEmpty,
              let name = (json["action"] as? String)?.lowercased(), let kind = Kind(rawValue: name),
              let timestamp = SyncTimestamp.date(json["timestamp"]) else { return nil }
        func seconds(_ key: String) -> Int? {
            guard let number = (json[key] as? NSNumber)?.doubleValue ?? (json[key] as? String).flatMap(Double.init),
                  number.isFinite, number >= 0, number < 1e9 else { return nil }
            return Int(number)
        }
        let guid = (json["guid"] as? String).flatMap { $0.isEmpty || $0 == "null" ? nil : $0 }
        self.init(podcast: podcast, episode: episode, guid: guid, kind: kind, timestamp: timestamp,
                  started: seconds("started"), position: seconds("position"), total: seconds("total"),
                  device: json["device"] as? String)
        if kind == .play, position == nil || position == 0 && total == nil { return nil }
    }
}

/// Timestamps as the sync servers write and read them. Written and read
/// by hand (the civil-calendar arithmetic of Howard Hinnant's
/// `days_from_civil`): a `DateFormatter` per timestamp cost more than
/// everything else a sync of 1,000 actions does.
public enum SyncTimestamp {
    /// `2024-10-20T10:16:13`: UTC without a zone, the form every server and AntennaPod accept.
    public static func string(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let time = seconds - days * 86400
        let (year, month, day) = civil(days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(time / 3600)):\(two(time % 3600 / 60)):\(two(time % 60))"
    }

    /// A timestamp as servers send it: naive (UTC), with `Z` or an offset
    /// (`+01:00`, `+0100`), with or without a fraction of a second, or Unix seconds.
    public static func date(_ value: Any?) -> Date? {
        if let number = value as? NSNumber, !(value is Bool) { return Date(timeIntervalSince1970: number.doubleValue) }
        guard let text = (value as? String)?.trimmingCharacters(in: .whitespaces) else { return nil }
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
              let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        // The offset, if any, after the seconds (and any fraction).
        var rest = bytes[19...]
        var fraction = 0.0
        if rest.first == UInt8(ascii: ".") {
            let digits = rest.dropFirst().prefix { (48...57).contains($0) }
            fraction = Double("0." + String(decoding: digits, as: UTF8.self)) ?? 0
            rest = rest.dropFirst(1 + digits.count)
        }
        var offset: Int64 = 0
        if rest.isEmpty || Array(rest) == Array("Z".utf8) {
            offset = 0
        } else if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            let digits = Array(rest.dropFirst().filter { $0 != UInt8(ascii: ":") })
            guard digits.count == 4, let hours = number(digits, 0, 2), let minutes = number(digits, 2, 2) else { return nil }
            offset = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        let seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for byte in bytes[start..<start + count] {
            guard (48...57).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 48)
        }
        return value
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day since 1970-01-01.
    static func civil(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
