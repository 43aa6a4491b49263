import Foundation
import PodsClient
import PodsGtk

/// One podcast's page: its title and its episodes (newest first, or oldest
/// first for a serial show, as podsd orders them), each with its date,
/// length and progress, a Play button and one that opens its page (as
/// activating the row does). Rows follow `EpisodesChanged` and
/// `EpisodeStatusChanged`.
@MainActor
final class EpisodesPage {
    let root = Box(vertical: true)
    private(set) var podcast: PodcastRow?
    private(set) var rows: [EpisodeRow] = []
    private var rowOfEpisode: [Int64: Int] = [:]
    private let heading = Label()
    private let detail = Label()
    private var list: ListView<ListRow<EpisodeRow>>!
    /// The show's artwork, people, funding, trailers and podroll.
    let header: ShowHeader

    init(back: @escaping @MainActor () -> Void, refresh: @escaping @MainActor (Int64) -> Void,
         play: @escaping @MainActor (EpisodeRow) -> Void, open: @escaping @MainActor (EpisodeRow) -> Void,
         header: ShowHeader, settings: @escaping @MainActor (PodcastRow) -> Void) {
        self.header = header
        list = ListView(name: "Episodes",
                        make: {
                            let row = ListRow(headingStyle: false, [.init(icon: "media-playback-start-symbolic", verb: "Play", body: play),
                                                                    .init(icon: "go-next-symbolic", verb: "About", body: open)])
                            return (row, row.root)
                        },
                        bind: { [unowned self] row, index in
                            let episode = self.rows[index]
                            return row.show(episode, title: episode.title, detail: episode.facts)
                        })
        list.onActivate { [unowned self] index in if self.rows.indices.contains(index) { open(self.rows[index]) } }
        let refreshButton = Button(icon: "view-refresh-symbolic", name: "Refresh this podcast")
        refreshButton.onClick { [unowned self] in if let id = self.podcast?.id { refresh(id) } }
        let settingsButton = Button(icon: "emblem-system-symbolic", name: "Settings of this podcast")
        settingsButton.onClick { [unowned self] in if let podcast = self.podcast { settings(podcast) } }
        root.append(PageTop.make(back: back, backName: "Back to podcasts", heading: heading, detail: detail,
                                 end: [settingsButton, refreshButton]))
        root.append(header.root)
        root.append(Scrolled(list))
        root.expand(horizontally: true, vertically: true)
    }

    func show(_ podcast: PodcastRow) {
        self.podcast = podcast
        heading.text = podcast.title
        detail.text = podcast.summary
    }

    func show(episodes: [EpisodeRow]) {
        rows = episodes
        rowOfEpisode = Dictionary(episodes.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        list.reload(count: rows.count)
    }

    /// One episode changed (its progress, played): only its row is bound again.
    func replace(_ episode: EpisodeRow) {
        guard let row = rowOfEpisode[episode.id] else { return }
        rows[row] = episode
        list.changed(row..<(row + 1))
    }

    func contains(_ episode: Int64) -> Bool { rowOfEpisode[episode] != nil }
}

extension EpisodeRow {
    /// "2026-11-27 · 1:02:03 · at 12:00" or "· played".
    var facts: String {
        var parts = [String]()
        if let published { parts.append(Clock.day(unixSeconds: Int64(published.timeIntervalSince1970))) }
        if let duration { parts.append(Clock.text(duration)) }
        if completed { parts.append("played") } else if position > 0 { parts.append("at \(Clock.text(position))") }
        return parts.joined(separator: " · ")
    }
}
