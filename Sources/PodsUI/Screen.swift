import Foundation
import PodsClient
import PodsTerminal

/// Draws a `UIModel` on a `Canvas` of the terminal's size: the layouts'
/// tabs on top, the panes, a line for messages and prompts, and the
/// player bar at the bottom.
public enum Screen {
    /// The smallest terminal the layouts are made for; smaller ones get a note.
    public static let minimum = (rows: 15, columns: 60)

    /// Rows a list pane shows (its title row left out), for paging.
    public static func listHeight(rows: Int) -> Int { max(1, rows - 5) }

    /// The width of the details pane's text in this layout.
    public static func detailsWidth(_ layout: UIModel.Layout, columns: Int) -> Int {
        let (_, _, details) = paneColumns(layout, columns: columns)
        return max(10, details.width - 2)
    }

    /// Where the details pane shows the episode's artwork, in cells: a square
    /// picture (a cell is about twice as tall as wide) under the pane's
    /// title, the page's text below it; nil when there is none to show.
    public static func pictureFrame(_ model: UIModel, rows: Int, columns: Int) -> PictureFrame? {
        guard model.showsPictures, !model.showsHelp, rows >= minimum.rows, columns >= minimum.columns,
              let page = model.page, model.picture?.episodeID == page.episodeID else { return nil }
        let (_, _, pane) = paneColumns(model.layout, columns: columns)
        let textRows = rows - 5  // the pane's rows under its title
        var size = (columns: min(pane.width - 3, 24), rows: 0)
        size.rows = (size.columns + 1) / 2
        if size.rows > textRows / 2 { size = (textRows / 2 * 2, textRows / 2) }
        guard size.rows >= 4 else { return nil }
        return PictureFrame(row: 2, column: pane.column + 1, columns: size.columns, rows: size.rows)
    }

    /// Rows the details pane shows text in (under its title, and under the picture when it shows one).
    public static func detailsHeight(_ model: UIModel, rows: Int, columns: Int) -> Int {
        max(1, listHeight(rows: rows) - (pictureFrame(model, rows: rows, columns: columns).map { $0.rows + 1 } ?? 0))
    }

    public static func render(_ model: UIModel, rows: Int, columns: Int, keys: KeyMap, now: ContinuousClock.Instant = .now) -> Canvas {
        var canvas = Canvas(rows: rows, columns: columns)
        guard rows >= minimum.rows, columns >= minimum.columns else {
            canvas.put("pods ui needs \(minimum.columns)×\(minimum.rows); this is \(columns)×\(rows)", row: 0, column: 0)
            return canvas
        }
        tabs(model, &canvas, keys: keys)
        let top = 1, height = rows - 4
        let (left, middle, right) = paneColumns(model.layout, columns: columns)
        switch model.layout {
        case .podcasts:
            podcastList(model, &canvas, top: top, height: height, at: left)
            episodeList(model, \.episodes, title: model.selectedPodcast?.title ?? "Episodes", &canvas, top: top, height: height,
                        at: middle, focused: model.focus == .episodes, showPodcast: false)
        case .search:
            resultList(model, &canvas, top: top, height: height, at: left, keys: keys)
        case .queue, .downloads, .newest, .bookmarks, .playlists, .listening, .transcript, .found:
            // One list beside the details, named by its layout.
            if let list = model.shownEpisodes {
                let title = switch model.layout {
                case .newest: "Every episode, newest first"
                case .found: model.findTerm.isEmpty ? "Find (s: words)" : "Found: \(model.findTerm)"
                default: model.layout.title
                }
                episodeList(model, list, title: title, &canvas,
                            top: top, height: height, at: left, focused: model.focus == .list, showPodcast: true)
            }
        }
        let picture = pictureFrame(model, rows: rows, columns: columns)
        detailsPane(model, &canvas, top: top, height: height, at: right, below: picture.map { $0.rows + 1 } ?? 0)
        messageLine(model, &canvas, row: rows - 3)
        playerBar(model, &canvas, row: rows - 2, now: now)
        if model.showsHelp { help(model, &canvas, keys: keys) }
        return canvas
    }

    // MARK: - Geometry

    typealias Span = (column: Int, width: Int)

    static func paneColumns(_ layout: UIModel.Layout, columns: Int) -> (Span, Span, Span) {
        if layout == .podcasts {
            let first = columns * 28 / 100, second = columns * 36 / 100
            return ((0, first), (first + 1, second), (first + second + 2, columns - first - second - 2))
        }
        let first = columns / 2
        return ((0, first), (0, 0), (first + 1, columns - first - 1))
    }

    // MARK: - Parts

    private static func tabs(_ model: UIModel, _ canvas: inout Canvas, keys: KeyMap) {
        canvas.fill(row: 0, style: Style(.header))
        var column = canvas.put(" Pods ", row: 0, column: 0, style: Style(.header, bold: true))
        for layout in UIModel.Layout.allCases {
            let label = " \(layout.key) \(layout.title) "
            column += canvas.put(label, row: 0, column: column, style: layout == model.layout ? Style(.selected, bold: true) : Style(.header))
        }
        let help = " \(keys.keys(of: .help).first ?? "?") help "
        let width = DisplayText.width(of: help)
        if column + width < canvas.columns { canvas.put(help, row: 0, column: canvas.columns - width, style: Style(.header)) }
    }

    private static func separator(_ canvas: inout Canvas, column: Int, top: Int, height: Int) {
        guard column > 0 else { return }
        for row in top..<(top + height) { canvas.put("│", row: row, column: column - 1, style: Style(.border)) }
    }

    private static func paneTitle(_ text: String, _ canvas: inout Canvas, row: Int, at span: Span, focused: Bool) {
        canvas.fill(row: row, column: span.column, width: span.width, style: Style(focused ? .title : .dim))
        canvas.put(" " + text, row: row, column: span.column, width: span.width, style: Style(focused ? .title : .dim, bold: focused))
    }

    private static func rowStyle(selected: Bool, focused: Bool, _ base: Style = .normal) -> Style {
        selected ? Style(focused ? .selected : .selectedElsewhere) : base
    }

    private static func podcastList(_ model: UIModel, _ canvas: inout Canvas, top: Int, height: Int, at span: Span) {
        let focused = model.focus == .list
        let rows = model.podcasts.visible(matching: UIModel.matches)
        paneTitle("Podcasts (\(rows.count))" + filterNote(model.podcasts.filter), &canvas, row: top, at: span, focused: focused)
        for (offset, index) in visibleIndices(model.podcasts, count: rows.count, height: height - 1).enumerated() {
            let podcast = rows[index]
            let row = top + 1 + offset
            let style = rowStyle(selected: index == model.podcasts.selected, focused: focused,
                                 podcast.id == model.status?.podcastId ? Style(.playing) : .normal)
            canvas.fill(row: row, column: span.column, width: span.width, style: style)
            let count = podcast.unplayed > 0 ? " \(podcast.unplayed)" : ""
            let mark = podcast.lastError == nil ? " " : "!"
            let countWidth = DisplayText.width(of: count)
            canvas.put(mark + podcast.title, row: row, column: span.column, width: span.width - countWidth - 1, style: style)
            canvas.put(count, row: row, column: span.column + span.width - countWidth - 1, width: countWidth, style: style)
        }
    }

    static func marker(_ episode: EpisodeRow, _ model: UIModel) -> String {
        if isPlaying(episode, model) { return model.status?.state == .playing ? "▶" : "‖" }
        if episode.cueIndex != nil { return "·" }
        if episode.completed { return "✓" }
        if episode.position > 0 { return "◐" }
        return "·"
    }

    /// Whether `episode` is what plays: the loaded episode, or (a transcript's row) the line being heard.
    static func isPlaying(_ episode: EpisodeRow, _ model: UIModel) -> Bool {
        if let cue = episode.cueIndex { return cue == model.status?.cue?.index }
        return episode.id == model.status?.episodeId
    }

    private static func episodeList(_ model: UIModel, _ key: KeyPath<UIModel, ListState<EpisodeRow>>, title: String,
                                    _ canvas: inout Canvas, top: Int, height: Int, at span: Span, focused: Bool, showPodcast: Bool) {
        guard span.width > 0 else { return }
        separator(&canvas, column: span.column, top: top, height: height)
        let list = model[keyPath: key]
        let rows = list.visible(matching: UIModel.matches)
        let more = list.complete ? "" : "+"
        paneTitle("\(title) (\(rows.count)\(more))" + filterNote(list.filter), &canvas, row: top, at: span, focused: focused)
        if rows.isEmpty {
            canvas.put(list.loading ? "  loading…" : "  nothing here", row: top + 1, column: span.column, width: span.width, style: Style(.dim))
        }
        for (offset, index) in visibleIndices(list, count: rows.count, height: height - 1).enumerated() {
            let episode = rows[index]
            let row = top + 1 + offset
            let playing = isPlaying(episode, model)
            let style = rowStyle(selected: index == list.selected, focused: focused, playing ? Style(.playing) : episode.completed ? Style(.dim) : .normal)
            canvas.fill(row: row, column: span.column, width: span.width, style: style)
            var right = ""
            if let share = episode.downloaded { right = share >= 1 ? "done" : "\(Int(share * 100))%" }
            else if let published = episode.published, span.width >= 40 { right = Self.day(published) }
            let rightWidth = DisplayText.width(of: right)
            let text = marker(episode, model) + " " + episode.title + (showPodcast && !episode.podcastTitle.isEmpty ? " — " + episode.podcastTitle : "")
            canvas.put(text, row: row, column: span.column, width: span.width - rightWidth - (rightWidth > 0 ? 2 : 1), style: style)
            if rightWidth > 0 { canvas.put(right, row: row, column: span.column + span.width - rightWidth - 1, width: rightWidth, style: style) }
        }
    }

    private static func resultList(_ model: UIModel, _ canvas: inout Canvas, top: Int, height: Int, at span: Span, keys: KeyMap) {
        let focused = model.focus == .list
        let rows = model.results.visible(matching: UIModel.matches)
        let title = model.searchTerm.isEmpty ? "Search: \(keys.keys(of: .subscribe).first ?? "s") searches the directories" : "Search: \(model.searchTerm) (\(rows.count))"
        paneTitle(title, &canvas, row: top, at: span, focused: focused)
        for (offset, index) in visibleIndices(model.results, count: rows.count, height: height - 1).enumerated() {
            let result = rows[index]
            let row = top + 1 + offset
            let style = rowStyle(selected: index == model.results.selected, focused: focused)
            canvas.fill(row: row, column: span.column, width: span.width, style: style)
            canvas.put(" " + result.title + (result.author.isEmpty ? "" : " — " + result.author), row: row, column: span.column,
                       width: span.width - 1, style: style)
        }
    }

    /// `below`: rows left blank under the title (the picture's).
    private static func detailsPane(_ model: UIModel, _ canvas: inout Canvas, top: Int, height: Int, at span: Span, below: Int) {
        separator(&canvas, column: span.column, top: top, height: height)
        let focused = model.focus == .details
        paneTitle("Details", &canvas, row: top, at: span, focused: focused)
        for (offset, index) in visibleIndices(model.details, count: model.details.rows.count, height: height - 1 - below).enumerated() {
            let line = model.details.rows[index]
            let row = top + 1 + below + offset
            var style: Style = switch line.kind {
            case .title: Style(.title, bold: true)
            case .heading: Style(.accent, bold: true)
            case .facts: Style(.dim)
            case .text: line.action == nil ? .normal : Style(.accent)
            }
            if focused && index == model.details.selected { style = Style(.selected) }
            if focused && index == model.details.selected { canvas.fill(row: row, column: span.column, width: span.width, style: style) }
            canvas.put(" " + line.text, row: row, column: span.column, width: span.width, style: style)
        }
    }

    private static func messageLine(_ model: UIModel, _ canvas: inout Canvas, row: Int) {
        if let prompt = model.prompt {
            let label = switch prompt {
            case .filter: "Filter: "
            case .subscribe: "Subscribe to (a feed URL, an Apple link or a page): "
            case .search: "Search the directories for: "
            case .find: "Find in everything heard: "
            case .link: "Open link number: "
            }
            let used = canvas.put(label, row: row, column: 0, style: Style(.accent, bold: true))
            let room = canvas.columns - used - 1
            // The end of what is typed stays in sight.
            var shown = model.input
            while DisplayText.width(of: shown) > room, !shown.isEmpty { shown.removeFirst() }
            let typed = canvas.put(shown, row: row, column: used)
            canvas.put("▏", row: row, column: used + typed, style: Style(.accent))
            return
        }
        if !model.connected {
            canvas.put("podsd is not running: waiting for it (start it with: podsd &)…", row: row, column: 0, style: Style(.error, bold: true))
        } else if let message = model.message {
            canvas.put(message, row: row, column: 0, style: Style(message.hasPrefix("!") ? .error : .accent))
        } else if let refreshing = model.refreshing {
            canvas.put("refreshing \(refreshing.done)/\(refreshing.total) feeds…", row: row, column: 0, style: Style(.dim))
        }
    }

    private static func playerBar(_ model: UIModel, _ canvas: inout Canvas, row: Int, now: ContinuousClock.Instant) {
        canvas.fill(row: row, style: Style(.bar))
        canvas.fill(row: row + 1, style: Style(.bar))
        guard let status = model.status, status.state != .stopped || status.title != nil else {
            canvas.put(" ■ Stopped — Enter on an episode plays it", row: row, column: 0, style: Style(.bar))
            return
        }
        let symbol = status.buffering ? "…" : status.state == .playing ? "▶" : status.state == .paused ? "‖" : "■"
        var title = " \(symbol) "
        if let podcast = model.podcastTitle, !podcast.isEmpty { title += podcast + " — " }
        title += status.title ?? status.url ?? ""
        if let chapter = status.chapter { title += " · \(chapter.index). \(chapter.title)" }
        canvas.put(title, row: row, column: 0, style: Style(.bar, bold: true))

        let position = model.position(at: now)
        var facts: [String] = [String(format: "%.2g×", status.rate).replacingOccurrences(of: ".0×", with: "×"), "vol \(Int((status.volume * 100).rounded()))%"]
        if let sleep = status.sleep {
            facts.append(sleep.remaining.map { "sleep \(Clock.text($0))" } ?? "sleep at end of \(sleep.mode)")
        }
        // Whether loudness is levelled (its gain moves while the status line stands: `pods status` reads it).
        if status.loudnessGain != nil { facts.append("levelled") }
        if let cached = status.cached, cached < 1 { facts.append("cached \(Int(cached * 100))%") }
        if let error = status.lastError { facts.append("! \(error)") }
        let right = "  " + facts.joined(separator: "  ") + " "
        let times = " \(Clock.text(position)) / \(status.duration.map(Clock.text) ?? "--:--") "
        let rightWidth = DisplayText.width(of: right)
        let used = canvas.put(times, row: row + 1, column: 0, style: Style(.bar))
        let barWidth = max(0, canvas.columns - used - rightWidth)
        let filled = status.duration.map { $0 > 0 ? Int((Double(barWidth) * min(1, position / $0)).rounded()) : 0 } ?? 0
        // Drawn, not only coloured: the position shows without colours too.
        canvas.put(String(repeating: "━", count: filled), row: row + 1, column: used, style: Style(.barFill))
        if filled < barWidth {
            canvas.put(String(repeating: "─", count: barWidth - filled), row: row + 1, column: used + filled, style: Style(.bar))
        }
        canvas.put(right, row: row + 1, column: canvas.columns - rightWidth, style: Style(.bar))
    }

    /// The help's lines at `width`: each action's keys, then what it does (wrapped).
    static func helpLines(keys: KeyMap, width: Int) -> [(keys: String, text: String)] {
        let keyWidth = 14
        var lines: [(String, String)] = []
        for action in UIAction.allCases {
            let text = DisplayWrap.lines(action.help, width: max(10, width - keyWidth - 3))
            for (index, line) in text.enumerated() {
                lines.append((index == 0 ? DisplayText.truncated(keys.keys(of: action).joined(separator: " "), to: keyWidth) : "", line))
            }
        }
        return lines
    }

    private static func help(_ model: UIModel, _ canvas: inout Canvas, keys: KeyMap) {
        let width = min(canvas.columns - 4, 76)
        let lines = helpLines(keys: keys, width: width)
        let height = min(canvas.rows - 2, lines.count + 2)
        let left = (canvas.columns - width) / 2, top = max(1, (canvas.rows - height) / 2)
        for row in top..<(top + height) { canvas.fill(row: row, column: left, width: width, style: Style(.header)) }
        let first = min(model.helpTop, max(0, lines.count - (height - 2)))
        let more = first + height - 2 < lines.count ? " (↓ more)" : ""
        canvas.put(" Keys\(more) — any other key closes this", row: top, column: left, width: width, style: Style(.header, bold: true))
        for (offset, line) in lines.dropFirst(first).prefix(height - 2).enumerated() {
            let row = top + 1 + offset
            canvas.put(" " + line.keys, row: row, column: left, width: 15, style: Style(.header, bold: true))
            canvas.put(line.text, row: row, column: left + 17, width: width - 18, style: Style(.header))
        }
    }

    // MARK: - Helpers

    private static func visibleIndices<Row>(_ list: ListState<Row>, count: Int, height: Int) -> Range<Int> {
        let top = min(list.top, max(0, count - 1))
        return top..<min(count, top + max(0, height))
    }

    private static func filterNote(_ filter: String) -> String { filter.isEmpty ? "" : " /\(filter)" }

    /// `2026-11-27`.
    static func day(_ date: Date) -> String { Clock.day(unixSeconds: Int64(date.timeIntervalSince1970)) }
}

/// A rectangle of cells a picture is shown in.
public struct PictureFrame: Sendable, Equatable {
    public let row: Int
    public let column: Int
    public let columns: Int
    public let rows: Int

    public init(row: Int, column: Int, columns: Int, rows: Int) {
        (self.row, self.column, self.columns, self.rows) = (row, column, columns, rows)
    }
}
