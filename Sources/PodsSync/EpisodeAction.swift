import Foundation
import PodsFeedParser

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
            let number = (json[key] as? NSNumber)?.doubleValue ?? (json[key] as? String).flatMap(Double.init)
            return MediaSeconds.whole(number, rounding: .towardZero)
        }
        let guid = (json["guid"] as? String).flatMap { $0.isEmpty || $0 == "null" ? nil : $0 }
        self.init(podcast: podcast, episode: episode, guid: guid, kind: kind, timestamp: timestamp,
                  started: seconds("started"), position: seconds("position"), total: seconds("total"),
                  device: json["device"] as? String)
        if kind == .play, position == nil || position == 0 && total == nil { return nil }
    }
}

/// Timestamps as the sync servers write and read them, through the feed
/// parser's ISO 8601 arithmetic (a `DateFormatter` per timestamp cost more
/// than everything else a sync of 1,000 actions does).
public enum SyncTimestamp {
    /// `2024-10-20T10:16:13`: UTC without a zone, the form every server and AntennaPod accept.
    public static func string(_ date: Date) -> String {
        String(JSONDate.string(unixSeconds: Int64(date.timeIntervalSince1970.rounded(.down))).dropLast())  // without the "Z"
    }

    /// A timestamp as servers send it: naive (UTC), with `Z` or an offset
    /// (`+01:00`, `+0100`), with or without a fraction of a second (dropped),
    /// or Unix seconds.
    public static func date(_ value: Any?) -> Date? {
        if let number = value as? NSNumber, !(value is Bool) {
            // Unix seconds from 1970 to the year 5138: 1e20 would become a Date no later arithmetic survives.
            let seconds = number.doubleValue
            return seconds.isFinite && seconds >= 0 && seconds < 1e11 ? Date(timeIntervalSince1970: seconds) : nil
        }
        guard let text = value as? String, text.count >= 19 else { return nil }
        return JSONDate.date(text)
    }
}
