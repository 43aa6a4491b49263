import PodsClient
import PodsGtk

/// One of the window's lists of episodes beside the podcasts (Up Next,
/// Downloads, Bookmarks): a heading, the rows with their buttons, and a
/// page that says why it is empty. The caller reads the rows again when
/// podsd announces their change.
@MainActor
final class EpisodeListPage {
    /// A row: the episode (or bookmark) and the line under its title.
    struct Entry: Equatable {
        var row: EpisodeRow
        var detail: String
    }

    let root = Box(vertical: true)
    private(set) var entries: [Entry] = []
    private let empty: StatusPage
    private var scrolled: Scrolled!
    private var list: ListView<ListRow<Entry>>!

    init(name: String, emptyIcon: String, emptyTitle: String, emptyDescription: String, actions: [ListRow<Entry>.Action]) {
        empty = StatusPage(icon: emptyIcon, title: emptyTitle, description: emptyDescription)
        let list = ListView<ListRow<Entry>>(
            name: name,
            make: { let row = ListRow(headingStyle: false, actions); return (row, row.root) },
            bind: { [unowned self] row, index in
                let entry = self.entries[index]
                return row.show(entry, title: entry.row.title, detail: entry.detail)
            })
        self.list = list
        scrolled = Scrolled(list)
        empty.expand(horizontally: true, vertically: true)
        root.append(empty)
        root.append(scrolled)
        root.expand(horizontally: true, vertically: true)
        show([])
    }

    func show(_ entries: [Entry]) {
        guard entries != self.entries || entries.isEmpty else { return }
        self.entries = entries
        empty.isVisible = entries.isEmpty
        scrolled.isVisible = !entries.isEmpty
        list.reload(count: entries.count)
    }

    /// Where `episode` is in the list (the queue's moves).
    func index(of episode: Int64) -> Int? { entries.firstIndex { $0.row.id == episode } }
}
