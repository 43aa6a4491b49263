import PodsClient
import PodsGtk

/// An episode's whole transcript, a row a line with its time, each played
/// from where it is said (podsd plays it from there). At most
/// 100,000 lines, as `pods ui` keeps.
@MainActor
final class TranscriptPage {
    nonisolated static let maximumLines = 100_000

    let root = Box(vertical: true)
    private let heading = Label()
    private var lines: EpisodeListPage!
    private(set) var episode: Int64?

    init(back: @escaping @MainActor () -> Void, playFrom: @escaping @MainActor (Int64, Double) -> Void) {
        lines = EpisodeListPage(
            name: "Transcript", emptyIcon: "format-justify-left-symbolic", emptyTitle: "Reading the transcript…",
            emptyDescription: "podsd fetches it once and keeps it.",
            actions: [.init(icon: "media-playback-start-symbolic", name: { "Play from here: \($0)" }) { entry in
                guard let start = entry.row.cueStart else { return }
                playFrom(entry.row.id, start)
            }])
        root.append(PageTop.make(back: back, backName: "Back to the episode", heading: heading))
        root.append(lines.root)
        root.expand(horizontally: true, vertically: true)
    }

    func show(episode: Int64, title: String) {
        self.episode = episode
        heading.text = "Transcript of \(title)"
        lines.show([])
    }

    func show(_ rows: [EpisodeRow], of episode: Int64) {
        guard self.episode == episode else { return }
        lines.show(rows.map { .init(row: $0, detail: $0.cueIndex.map { "line \($0)" } ?? "") })
    }
}
