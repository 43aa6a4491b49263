import Foundation
import PodsDBus
import PodsFeedParser

/// A podcast as the lists show it.
public struct PodcastRow: Equatable, Sendable {
    public var id: Int64
    public var title: String
    public var unplayed: Int
    public var episodes: Int
    public var lastError: String?
    /// Who makes it ("" when the feed does not say).
    public var author = ""

    public init(id: Int64, title: String, unplayed: Int, episodes: Int, lastError: String?, author: String = "") {
        (self.id, self.title, self.unplayed, self.episodes, self.lastError) = (id, title, unplayed, episodes, lastError)
        self.author = author
    }
}

/// An episode as the lists show it.
public struct EpisodeRow: Equatable, Sendable {
    public var id: Int64
    public var podcastID: Int64
    public var podcastTitle: String
    public var title: String
    public var published: Date?
    /// Seconds.
    public var duration: Double?
    public var position: Double
    public var completed: Bool
    /// The share downloaded (the downloads list).
    public var downloaded: Double?
    /// The bookmark this row is (the bookmarks list): Enter plays from it.
    public var bookmark: Int64?
    /// The playlist this row is, as `PlayPlaylist` names it (the playlists list): Enter plays it.
    public var playlist: String?
    /// The transcript line this row is (the transcript list): its number from 1, and its start.
    public var cueIndex: Int?
    public var cueStart: Double?

    public init(id: Int64, podcastID: Int64, podcastTitle: String, title: String, published: Date?, duration: Double?,
                position: Double, completed: Bool, downloaded: Double?, bookmark: Int64? = nil) {
        (self.id, self.podcastID, self.podcastTitle, self.title, self.published) = (id, podcastID, podcastTitle, title, published)
        (self.duration, self.position, self.completed, self.downloaded, self.bookmark) = (duration, position, completed, downloaded, bookmark)
    }
}

/// A setting as `pods config` lists it: its value, its default, where the
/// value comes from (`default`, `config`, `podcast`) and what it does.
public struct SettingRow: Equatable, Sendable {
    public var key: String
    public var value: String
    public var defaultValue: String
    public var source: String
    public var help: String
    /// A secret: `value` says only whether it is set, and no client shows it.
    public var isSecret = false

    /// A setting that is on or off.
    public var isSwitch: Bool { defaultValue == "true" || defaultValue == "false" }
}

/// A directory search result.
public struct SearchRow: Equatable, Sendable {
    public var title: String
    public var author: String
    public var feedURL: String
    public var description: String
}

/// Reading the library's items (`a{sv}`, keys as docs/dbus.md lists them)
/// into the rows the clients list: `pods ui` and the window.
public enum Items {
    /// An item's entries by key (none when it is no `a{sv}`).
    public static func fields(_ value: DBusValue) -> [String: DBusValue] { value.unwrapped.stringKeyedDictionary ?? [:] }

    /// A `podcast` item as a row (nil without an id).
    public static func podcast(_ value: DBusValue) -> PodcastRow? {
        let item = fields(value)
        guard let id = item["id"]?.int64Value else { return nil }
        return PodcastRow(id: id, title: item["title"]?.stringValue ?? "", unplayed: Int(item["unplayedCount"]?.int64Value ?? 0),
                          episodes: Int(item["episodeCount"]?.int64Value ?? 0),
                          lastError: item["lastError"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
                          author: item["author"]?.stringValue ?? "")
    }

    /// An `episodeSummary` or `episode` item as a row (nil without an id).
    public static func episode(_ value: DBusValue) -> EpisodeRow? {
        let item = fields(value)
        guard let id = item["id"]?.int64Value else { return nil }
        return EpisodeRow(
            id: id, podcastID: item["podcastId"]?.int64Value ?? 0, podcastTitle: item["podcastTitle"]?.stringValue ?? "",
            title: item["title"]?.stringValue ?? "", published: item["published"]?.int64Value.map { Date(timeIntervalSince1970: Double($0)) },
            duration: item["duration"]?.doubleValue, position: item["position"]?.doubleValue ?? 0,
            completed: item["completed"]?.boolValue ?? false, downloaded: nil)
    }

    /// A `setting` item (`Config`) as a row (nil without a key).
    public static func setting(_ value: DBusValue) -> SettingRow? {
        let item = fields(value)
        guard let key = item["key"]?.stringValue, !key.isEmpty else { return nil }
        return SettingRow(key: key, value: item["value"]?.stringValue ?? "", defaultValue: item["default"]?.stringValue ?? "",
                          source: item["source"]?.stringValue ?? "", help: item["help"]?.stringValue ?? "",
                          isSecret: item["secret"]?.boolValue == true)
    }

    /// A download (`ListDownloads`): its state and how much of it is on disk.
    public static func download(_ value: DBusValue) -> EpisodeRow? {
        let item = fields(value)
        guard let id = item["episodeId"]?.int64Value else { return nil }
        let bytes = item["bytes"]?.int64Value ?? 0, size = item["size"]?.int64Value ?? 0
        let share: Double? = item["state"]?.stringValue == "downloaded" ? 1 : size > 0 ? Double(bytes) / Double(size) : nil
        return EpisodeRow(id: id, podcastID: item["podcastId"]?.int64Value ?? 0, podcastTitle: item["podcastTitle"]?.stringValue ?? "",
                          title: item["title"]?.stringValue ?? "episode \(id)", published: nil, duration: nil, position: 0,
                          completed: false, downloaded: share)
    }

    /// A download's line under its title: "Show · downloaded · 12.3 MB ·
    /// kept", or how far it has come, or why it failed.
    public static func downloadDetail(_ value: DBusValue) -> String {
        let fields = fields(value)
        var parts = [fields["podcastTitle"]?.stringValue ?? ""]
        switch fields["state"]?.stringValue {
        case "downloaded": parts.append("downloaded")
        case "failed": parts.append("failed" + (fields["error"]?.stringValue.map { ": \($0)" } ?? ""))
        case "queued": parts.append("waiting to download")
        default: parts.append(download(value)?.downloaded.map { "\(Int(($0 * 100).rounded(.down)))% downloaded" } ?? "downloading")
        }
        if let size = fields["size"]?.int64Value, size > 0 { parts.append(ByteCountFormatter.string(fromByteCount: size, countStyle: .file)) }
        if fields["pinned"]?.boolValue == true { parts.append("kept") }
        return parts.joined(separator: " · ")
    }

    /// The queue or a playlist, on its first episode's row (0: it holds none).
    public static func playlistRow(name: String, count: Int, active: Bool, play: String, first: Int64) -> EpisodeRow {
        var row = EpisodeRow(id: first, podcastID: 0, podcastTitle: active ? "plays next" : "",
                             title: "\(name) · \(count) episode\(count == 1 ? "" : "s")", published: nil, duration: nil, position: 0,
                             completed: false, downloaded: nil)
        row.playlist = play
        return row
    }

    /// A transcript line as a row: its time and text, the episode's id (its page in the details).
    public static func transcriptRow(_ cue: DBusValue, episode: Int64, number: Int) -> EpisodeRow {
        let item = fields(cue)
        let start = item["start"]?.doubleValue
        let text = (item["text"]?.stringValue ?? "").split(whereSeparator: \.isNewline).joined(separator: " ")
        var row = EpisodeRow(id: episode, podcastID: 0, podcastTitle: "", title: (start.map(Clock.text) ?? "") + "  " + text,
                             published: nil, duration: nil, position: 0, completed: false, downloaded: nil)
        row.cueIndex = number
        row.cueStart = start
        return row
    }

    /// A moment `Find` found: where it is heard and the words around it,
    /// on the episode's row (Enter plays from `cueStart`).
    public static func found(_ hit: DBusValue) -> EpisodeRow? {
        let item = fields(hit)
        guard let id = item["episodeId"]?.int64Value else { return nil }
        let at = item["at"]?.doubleValue
        let snippet = (item["snippet"]?.stringValue ?? "").split(whereSeparator: \.isNewline).joined(separator: " ")
        let kind = item["kind"]?.stringValue ?? ""
        var row = EpisodeRow(id: id, podcastID: 0, podcastTitle: item["episodeTitle"]?.stringValue ?? "",
                             title: (at.map(Clock.text) ?? kind) + "  " + snippet, published: nil, duration: nil, position: 0,
                             completed: false, downloaded: nil)
        row.cueStart = at
        return row
    }

    /// `ListeningStats` as rows: the whole, each podcast, each week (latest
    /// first); each row's id is below 0 (no episode, no details).
    public static func listeningRows(_ stats: [String: DBusValue]) -> [EpisodeRow] {
        var rows: [EpisodeRow] = []
        func add(_ title: String, _ note: String) {
            rows.append(EpisodeRow(id: -Int64(rows.count + 1), podcastID: 0, podcastTitle: note, title: title, published: nil,
                                   duration: nil, position: 0, completed: false, downloaded: nil))
        }
        let summary = listening(stats)
        add("\(ListeningTime.text(summary.seconds)) heard", "in all, \(summary.sessions) session\(summary.sessions == 1 ? "" : "s")")
        add("\(ListeningTime.text(summary.savedBySpeed)) saved by speed", "in all")
        add("\(ListeningTime.text(summary.savedByTrimming)) saved by trimming silence", "in all")
        for share in summary.podcasts {
            add("\(ListeningTime.text(share.seconds)) heard, \(ListeningTime.text(share.saved)) saved", share.name)
        }
        for share in summary.weeks.reversed() { add("\(ListeningTime.text(share.seconds)) heard", "week of \(share.name)") }
        return rows
    }

    /// A bookmark (`ListBookmarks`): its moment, its episode and its note, on the episode's row.
    public static func bookmark(_ value: DBusValue) -> EpisodeRow? {
        let item = fields(value)
        guard let id = item["id"]?.int64Value, let episode = item["episodeId"]?.int64Value else { return nil }
        let title = item["episodeTitle"]?.stringValue ?? "episode \(episode)", note = item["note"]?.stringValue ?? ""
        return EpisodeRow(id: episode, podcastID: 0, podcastTitle: item["podcastTitle"]?.stringValue ?? "",
                          title: Clock.text(item["position"]?.doubleValue ?? 0) + "  " + (note.isEmpty ? title : "\(title): \(note)"),
                          published: nil, duration: nil, position: 0, completed: false, downloaded: nil, bookmark: id)
    }

    /// A directory's result (`Search`) as a row (nil without a feed address).
    public static func search(_ value: DBusValue) -> SearchRow? {
        let item = fields(value)
        guard let url = item["feedURL"]?.stringValue else { return nil }
        let episodes = item["episodeCount"]?.int64Value.map { "\($0) episodes" }
        return SearchRow(title: item["title"]?.stringValue ?? url, author: item["author"]?.stringValue ?? "", feedURL: url,
                         description: [item["source"]?.stringValue, episodes].compactMap { $0 }.joined(separator: " · "))
    }

}

/// `h:mm:ss` or `m:ss`, and days as `2026-11-27`.
public enum Clock {
    public static func day(unixSeconds: Int64) -> String { String(JSONDate.string(unixSeconds: unixSeconds).prefix(10)) }

    /// Times come from outside (a feed's duration, through podsd): 1e23 seconds shows as 0:00, not a trap.
    public static func text(_ seconds: Double) -> String { MediaSeconds.clock(seconds) }
}

extension LibraryClient {
    /// Every subscription as a row (`ListPodcasts`, all its pages).
    public func podcastRows() async throws(PlayerClient.Failure) -> [PodcastRow] {
        var rows: [PodcastRow] = []
        try await podcasts { page in rows += page.compactMap(Items.podcast) }
        return rows
    }

    /// Every episode of `podcast` (nil: of all), as rows, streamed off the bus as `pods episodes` reads them.
    public func episodeRows(podcast: Int64?) async throws(PlayerClient.Failure) -> [EpisodeRow] {
        var rows: [EpisodeRow] = []
        try await episodes(podcast: podcast.map(String.init), unplayedOnly: false, limit: nil) { page in
            rows += page.compactMap(Items.episode)
        }
        return rows
    }
}
