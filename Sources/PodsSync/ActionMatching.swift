import Foundation

/// What a local episode offers for matching a remote action.
public struct SyncableEpisode: Sendable, Equatable {
    public var id: Int64
    public var guid: String?
    public var enclosureURLs: [String]

    public init(id: Int64, guid: String?, enclosureURLs: [String]) {
        self.id = id
        self.guid = guid
        self.enclosureURLs = enclosureURLs
    }
}

/// Finds the local episode a remote action is about: by guid, else by the
/// enclosure URL, else by the URL normalised (scheme and host case, `%3A`,
/// a trailing slash), as Kasts does; enclosure URLs change (CDN rewrites,
/// tracking prefixes), guids rarely do.
public enum ActionMatching {
    public static func episode(for action: EpisodeAction, among episodes: [SyncableEpisode]) -> SyncableEpisode? {
        Index(episodes).episode(for: action)
    }

    /// A podcast's episodes looked up by guid, enclosure URL and normalised
    /// URL, built once for all of a page's actions (the first episode wins).
    public struct Index: Sendable {
        private var byGuid: [String: SyncableEpisode] = [:]
        private var byURL: [String: SyncableEpisode] = [:]
        private var byNormalizedURL: [String: SyncableEpisode] = [:]

        public init(_ episodes: [SyncableEpisode]) {
            for episode in episodes.reversed() {
                if let guid = episode.guid { byGuid[guid] = episode }
                for url in episode.enclosureURLs {
                    byURL[url] = episode
                    byNormalizedURL[normalized(url)] = episode
                }
            }
        }

        public func episode(for action: EpisodeAction) -> SyncableEpisode? {
            if let guid = action.guid, let found = byGuid[guid] { return found }
            return byURL[action.episode] ?? byNormalizedURL[normalized(action.episode)]
        }
    }

    /// A URL as sync servers compare it.
    public static func normalized(_ url: String) -> String {
        var text = (url.removingPercentEncoding ?? url).trimmingCharacters(in: .whitespaces)
        if let schemeEnd = text.range(of: "://") {
            let hostEnd = text[schemeEnd.upperBound...].firstIndex(of: "/") ?? text.endIndex
            text = text[..<hostEnd].lowercased() + text[hostEnd...]
        }
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

/// Whether a remote action changes a local episode (SYNC.md's rules).
public enum ActionDecision: Sendable, Equatable {
    /// Nothing to do: older than the local change, or not a state Pods keeps.
    case ignore
    /// The episode is playing: apply when it stops.
    case later
    case setPosition(seconds: Int)
    case markPlayed
    case markUnplayed

    /// A remote action applies only if newer than the local change it would
    /// overwrite; never to the episode playing; a play within `playedWithin`
    /// seconds of its `total` marks the episode played.
    public static func decide(_ action: EpisodeAction, localChange: Date?, isPlaying: Bool, playedWithin: Int) -> ActionDecision {
        if let localChange, action.timestamp <= localChange { return .ignore }
        switch action.kind {
        case .play:
            guard let position = action.position else { return .ignore }
            if isPlaying { return .later }
            if let total = action.total, total > 0, total - position <= playedWithin { return .markPlayed }
            return .setPosition(seconds: position)
        case .new:
            return isPlaying ? .later : .markUnplayed
        case .download, .delete:
            return .ignore
        }
    }
}

/// Uploads go in batches of at most 30 actions, as AntennaPod's do.
public enum ActionBatches {
    public static let size = 30

    public static func split(_ actions: [EpisodeAction]) -> [[EpisodeAction]] {
        stride(from: 0, to: actions.count, by: size).map { Array(actions[$0..<min($0 + size, actions.count)]) }
    }
}
