import Foundation
import PodsClient
import PodsTerminal

/// Everything `pods ui` shows, and the rules that move it: pure, so tests
/// drive it without a terminal.
public struct UIModel: Sendable {
    public enum Layout: Int, Sendable, CaseIterable {
        case podcasts = 1, queue, downloads, newest, search, bookmarks, playlists, listening, transcript
        /// What `pods find` finds in everything heard; its key is 0.
        case found = 10

        /// The key that shows it, as the tabs name it.
        var key: String { self == .found ? "0" : "\(rawValue)" }

        var title: String {
            switch self {
            case .podcasts: "Podcasts"
            case .queue: "Queue"
            case .downloads: "Downloads"
            case .newest: "Newest"
            case .search: "Search"
            case .bookmarks: "Bookmarks"
            case .playlists: "Playlists"
            case .listening: "Listening"
            case .transcript: "Transcript"
            case .found: "Find"
            }
        }
    }

    /// Which pane keys move in: the list (`podcasts` in layout 1), the
    /// episodes beside it (layout 1 only), or the details.
    public enum Pane: Sendable { case list, episodes, details }

    /// What the bottom line is asking for, if anything.
    public enum Prompt: Equatable, Sendable {
        case filter
        case subscribe
        case search
        /// Words to find in everything heard (layout 0).
        case find
        /// The number of a link of the page shown.
        case link
    }

    public var layout: Layout = .podcasts
    public var focus: Pane = .list
    public var podcasts = ListState<PodcastRow>()
    public var episodes = ListState<EpisodeRow>()
    /// Whose episodes `episodes` holds.
    public var episodesOf: Int64?
    public var queue = ListState<EpisodeRow>()
    public var downloads = ListState<EpisodeRow>()
    public var bookmarks = ListState<EpisodeRow>()
    public var playlists = ListState<EpisodeRow>()
    /// The playing episode's transcript, a line a row (`cueIndex`, `cueStart`).
    public var transcript = ListState<EpisodeRow>()
    /// Moments found in titles, show notes, chapters and transcripts (`cueStart`: where), and the words.
    public var found = ListState<EpisodeRow>()
    public var findTerm = ""
    /// The listening log's sums (rows that are no episode: ids below 0).
    public var listening = ListState<EpisodeRow>()
    public var newest = ListState<EpisodeRow>()
    public var results = ListState<SearchRow>()
    public var searchTerm = ""
    /// The page of the episode the details pane shows.
    public var page: EpisodeDetails?
    public var details = ListState<DetailLine>()
    public var status: PlayerStatus?
    public var podcastTitle: String?
    /// When `status` was read, to move the position on between reads.
    public var statusAt = ContinuousClock.now
    public var prompt: Prompt?
    public var input = ""
    public var showsHelp = false
    /// The first line of the help shown (it scrolls on a small terminal).
    public var helpTop = 0
    /// One line at the bottom (an error, what was done), until the next key.
    public var message: String?
    /// Whether the details pane shows the episode's artwork (the terminal shows pictures).
    public var showsPictures = false
    /// The artwork of the episode whose page is shown (or was, until the next arrives).
    public var picture: EpisodePicture?
    public var connected = true
    public var refreshing: (done: Int, total: Int)?

    public init() {}

    // MARK: - The episode lists

    static func matches(_ row: EpisodeRow, _ filter: String) -> Bool {
        row.title.localizedCaseInsensitiveContains(filter) || row.podcastTitle.localizedCaseInsensitiveContains(filter)
    }

    static func matches(_ row: PodcastRow, _ filter: String) -> Bool { row.title.localizedCaseInsensitiveContains(filter) }
    static func matches(_ row: SearchRow, _ filter: String) -> Bool {
        row.title.localizedCaseInsensitiveContains(filter) || row.author.localizedCaseInsensitiveContains(filter)
    }

    /// The episode list beside the details (layout 1's episodes even while the podcasts have the keys).
    var shownEpisodes: WritableKeyPath<UIModel, ListState<EpisodeRow>>? {
        switch layout {
        case .podcasts: \.episodes
        case .queue: \.queue
        case .downloads: \.downloads
        case .newest: \.newest
        case .bookmarks: \.bookmarks
        case .playlists: \.playlists
        case .listening: \.listening
        case .transcript: \.transcript
        case .found: \.found
        case .search: nil
        }
    }

    /// The episode the keys are on: the selected row of the list with the keys, or the page shown.
    public var selectedEpisode: EpisodeRow? {
        guard let key = shownEpisodes else { return nil }
        let list = self[keyPath: key]
        let visible = list.visible(matching: Self.matches)
        return visible.indices.contains(list.selected) ? visible[list.selected] : nil
    }

    public var selectedPodcast: PodcastRow? {
        let visible = podcasts.visible(matching: Self.matches)
        return visible.indices.contains(podcasts.selected) ? visible[podcasts.selected] : nil
    }

    public var selectedResult: SearchRow? {
        let visible = results.visible(matching: Self.matches)
        return visible.indices.contains(results.selected) ? visible[results.selected] : nil
    }

    /// Moves the selection of the pane with the keys.
    public mutating func move(_ action: UIAction, height: Int) {
        func step(_ list: inout ListState<some Sendable>, count: Int) {
            switch action {
            case .up: list.move(by: -1, count: count, height: height)
            case .down: list.move(by: 1, count: count, height: height)
            case .pageUp: list.move(by: -max(1, height - 1), count: count, height: height)
            case .pageDown: list.move(by: max(1, height - 1), count: count, height: height)
            case .top: list.select(0, count: count, height: height)
            case .bottom: list.select(count - 1, count: count, height: height)
            default: break
            }
        }
        switch (layout, focus) {
        case (_, .details):
            step(&details, count: details.rows.count)
        case (.podcasts, .list):
            step(&podcasts, count: podcasts.visible(matching: Self.matches).count)
        case (.search, _):
            step(&results, count: results.visible(matching: Self.matches).count)
        default:
            guard let key = shownEpisodes else { return }
            var list = self[keyPath: key]
            step(&list, count: list.visible(matching: Self.matches).count)
            self[keyPath: key] = list
        }
    }

    /// The panes from left to right in this layout.
    var panes: [Pane] { layout == .podcasts ? [.list, .episodes, .details] : [.list, .details] }

    public mutating func moveFocus(by delta: Int) {
        let panes = panes
        let index = panes.firstIndex(of: focus) ?? 0
        focus = panes[min(max(0, index + delta), panes.count - 1)]
    }

    /// Shows `page` in the details pane, wrapped to `width`.
    public mutating func show(_ page: EpisodeDetails?, width: Int) {
        self.page = page
        let lines = page?.lines(width: width) ?? []
        if details.rows != lines {
            details.rows = lines
            details.selected = 0
            details.top = 0
        }
    }

    /// The details of a search result (no episode page: the feed's facts).
    public mutating func showResult(width: Int) {
        page = nil
        guard let result = selectedResult else { details.rows = []; return }
        var lines = DisplayWrap.lines(result.title, width: width).map { DetailLine($0, .title) }
        if !result.author.isEmpty { lines += DisplayWrap.lines(result.author, width: width).map { DetailLine($0, .facts) } }
        if !result.description.isEmpty { lines += DisplayWrap.lines(result.description, width: width).map { DetailLine($0, .facts) } }
        lines += [DetailLine("")] + DisplayWrap.lines(result.feedURL, width: width).map { DetailLine($0, action: .subscribe(result.feedURL)) }
        lines += [DetailLine(""), DetailLine("Enter subscribes", .facts, action: .subscribe(result.feedURL))]
        details.rows = lines
        details.selected = 0
        details.top = 0
    }

    // MARK: - The player

    /// The position now: the last status read, moved on by the time since at the rate, while playing.
    public func position(at now: ContinuousClock.Instant = .now) -> Double {
        guard let status else { return 0 }
        guard status.state == .playing, !status.buffering else { return status.position }
        let elapsed = now - statusAt
        let moved = status.position + (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * status.rate
        return status.duration.map { min(moved, $0) } ?? moved
    }
}

/// An episode's artwork, a PNG for the terminal.
public struct EpisodePicture: Sendable, Equatable {
    public let episodeID: Int64
    public let png: [UInt8]

    public init(episodeID: Int64, png: [UInt8]) {
        self.episodeID = episodeID
        self.png = png
    }
}
