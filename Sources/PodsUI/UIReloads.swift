/// What podsd's change signals ask `pods ui` to read again, each read once
/// per turn of the UI's thread however many signals asked for it (MPD's
/// idle mask): a 200-feed refresh's 200 `EpisodesChanged` read the newest
/// list once, not 200 times.
package struct UIReloads: Equatable, Sendable {
    /// One read of what the screen shows.
    package enum Read: Hashable, Sendable {
        case status, podcasts, queue, downloads, newest, bookmarks, playlists
        case episodes(podcast: Int64)
        case page(Int64)
    }

    /// The reads asked for, in the order first asked, each once.
    package private(set) var reads: [Read] = []

    package init() {}

    /// Adds the reads `change` asks for, given what `model` shows.
    package mutating func add(_ change: UIChange, model: UIModel) {
        switch change {
        case .player:
            ask(.status)
        case .podcasts:
            // Also what podsd sends for changes too many to name: the episode lists read again too.
            ask(.podcasts)
            if let podcast = model.episodesOf, !model.episodes.rows.isEmpty { ask(.episodes(podcast: podcast)) }
            if !model.newest.rows.isEmpty { ask(.newest) }
            if !model.downloads.rows.isEmpty { ask(.downloads) }
        case .queue:
            if model.layout == .queue || !model.queue.rows.isEmpty { ask(.queue) }
        case .downloads:
            if model.layout == .downloads || !model.downloads.rows.isEmpty { ask(.downloads) }
            ask(.status)
        case .bookmarks:
            if model.layout == .bookmarks { ask(.bookmarks) }
        case .playlists:
            if model.layout == .playlists { ask(.playlists) }
        case .episodes(let podcast):
            if model.episodesOf == podcast { ask(.episodes(podcast: podcast)) }
            if !model.newest.rows.isEmpty { ask(.newest) }
        case .episode(let id):
            // Played, unplayed, or its place: the lists holding it read it again, and its page.
            if model.episodes.rows.contains(where: { $0.id == id }), let podcast = model.episodesOf {
                ask(.episodes(podcast: podcast))
            }
            if model.newest.rows.prefix(UIBackend.pageSize).contains(where: { $0.id == id }) { ask(.newest) }
            if model.queue.rows.contains(where: { $0.id == id }) { ask(.queue) }
            if model.page?.episodeID == id { ask(.page(id)) }
        }
    }

    private mutating func ask(_ read: Read) {
        if !reads.contains(read) { reads.append(read) }
    }
}
