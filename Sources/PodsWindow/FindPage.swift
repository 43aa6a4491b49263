import PodsClient
import PodsGtk

/// Find: the library's own words (titles, show notes, chapters,
/// transcripts) searched by podsd's index, each moment found played from
/// where it is heard (a title or the notes: from where it was left).
@MainActor
final class FindPage {
    /// Hits shown at most.
    static let limit = 50

    let root = Box(vertical: true)
    private let words = Entry(name: "Words to find", placeholder: "Find in titles, show notes, chapters and transcripts")
    private var results: EpisodeListPage!
    private var backend: WindowBackend?
    private let report: @MainActor (PlayerClient.Failure) -> Void
    private let reads = SerialRead()

    /// `play`: an episode from a moment (nil: from where it was left).
    init(report: @escaping @MainActor (PlayerClient.Failure) -> Void, play: @escaping @MainActor (Int64, Double?) -> Void) {
        self.report = report
        results = EpisodeListPage(
            name: "Found", emptyIcon: "edit-find-symbolic", emptyTitle: "Find what was said",
            emptyDescription: "Words from titles, show notes, chapters and transcripts; a moment found plays from where it is heard.",
            actions: [.init(icon: "media-playback-start-symbolic", name: { "Play from here: \($0)" }) { entry in
                play(entry.row.id, entry.row.cueStart)
            }])
        let find = Button("Find")
        find.onClick { [unowned self] in self.find() }
        words.onActivate { [unowned self] in self.find() }
        words.expand(horizontally: true)
        let bar = Box(vertical: false, spacing: 6)
        bar.margins(8)
        bar.append(words)
        bar.append(find)
        root.append(bar)
        root.append(results.root)
        root.expand(horizontally: true, vertically: true)
    }

    func connect(_ backend: WindowBackend) { self.backend = backend }

    private func find() {
        let text = words.text.trimmingCharacters(in: .whitespaces)
        guard let library = backend?.library, !text.isEmpty else { return }
        reads.request { [weak self] in
            do throws(PlayerClient.Failure) {
                let hits = try await library.find(text, limit: Self.limit).compactMap(Items.found)
                self?.results.show(hits.map { .init(row: $0, detail: $0.podcastTitle) })
            } catch { self?.report(error) }
        }
    }

}
