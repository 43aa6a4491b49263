import Foundation
import PodsClient
import PodsGtk

/// Stats: the hours heard in the last twelve weeks, a bar a week, the time
/// saved by speed and by trimming silence, and the hours by podcast. Read
/// from podsd's listening log each time the view is shown.
@MainActor
final class StatsPage {
    static let weeks = 12

    let root = Box(vertical: true, spacing: 8)
    private let heard = Label()
    private let saved = Label()
    private let chart = BarChart(name: "Hours heard by week", height: 160)
    private let podcasts = Box(vertical: true, spacing: 2)
    private let reads = SerialRead()
    private var backend: WindowBackend?

    init() {
        root.margins(top: 12, bottom: 12, start: 16, end: 16)
        let heading = Label("Your listening, the last \(Self.weeks) weeks")
        heading.style("title-3")
        heard.style("title-2")
        saved.style("dim-label")
        saved.wrap()
        let byPodcast = Label("By podcast")
        byPodcast.style("heading")
        for widget in [heading, heard, saved, chart, byPodcast, podcasts] as [Widget] { root.append(widget) }
        root.expand(horizontally: true, vertically: true)
    }

    func connect(_ backend: WindowBackend) { self.backend = backend }

    func reload() {
        guard let library = backend?.library else { return }
        let since = Int64(Date().timeIntervalSince1970) - Int64(Self.weeks * 7 * 86400)
        reads.request { [weak self] in
            guard let stats = try? await library.listeningStats(since: since) else { return }
            self?.show(Items.listening(stats))
        }
    }

    private func show(_ stats: ListeningSummary) {
        heard.text = "\(ListeningTime.text(stats.seconds)) heard in \(stats.sessions) session\(stats.sessions == 1 ? "" : "s")"
        saved.text = "\(ListeningTime.text(stats.savedBySpeed)) saved by speed, \(ListeningTime.text(stats.savedByTrimming)) by trimming silence"
        // Twelve slots however few weeks were heard, so one week's bar is a week wide.
        let heardWeeks = stats.weeks.suffix(Self.weeks).map { (label: String($0.name.suffix(5)), value: $0.seconds / 3600) }
        let bars = Array(repeating: (label: "", value: 0.0), count: Self.weeks - heardWeeks.count) + heardWeeks
        let words = stats.weeks.map { "week of \($0.name): \(ListeningTime.text($0.seconds))" }.joined(separator: ", ")
        chart.show(bars, words: "Hours heard by week: " + (words.isEmpty ? "none yet" : words))
        podcasts.removeAll()
        for share in stats.podcasts.prefix(50) {
            let line = Label("\(share.name): \(ListeningTime.text(share.seconds)) heard, \(ListeningTime.text(share.saved)) saved")
            line.ellipsize()
            podcasts.append(line)
        }
        if stats.podcasts.isEmpty { podcasts.append(Label("Nothing heard yet.")) }
    }
}
