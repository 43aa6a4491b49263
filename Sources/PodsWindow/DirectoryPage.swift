import PodsClient
import PodsGtk

/// What the directories (`pods search`'s: iTunes, and Podcast Index with a
/// key) found for the words typed on the podcasts page, each subscribed to
/// with one press.
@MainActor
final class DirectoryPage {
    let root = Box(vertical: true)
    private(set) var rows: [SearchRow] = []
    private let heading = Label()
    private let empty = StatusPage(icon: "edit-find-symbolic", title: "Nothing found", description: "The directories know no show by those words.")
    private var scrolled: Scrolled!
    private var list: ListView<ListRow<SearchRow>>!

    init(back: @escaping @MainActor () -> Void, subscribe: @escaping @MainActor (SearchRow) -> Void) {
        list = ListView(name: "Found in the directories",
                        make: {
                            let row = ListRow(headingStyle: true, [.init(icon: "list-add-symbolic", name: { "Subscribe to \($0)" }, body: subscribe)])
                            return (row, row.root)
                        },
                        bind: { [unowned self] row, index in
                            let found = self.rows[index]
                            let detail = [found.author, found.description].filter { !$0.isEmpty }.joined(separator: " · ")
                            return row.show(found, title: found.title, detail: detail)
                        })
        root.append(PageTop.make(back: back, backName: "Back to podcasts", heading: heading))
        empty.expand(horizontally: true, vertically: true)
        root.append(empty)
        scrolled = Scrolled(list)
        root.append(scrolled)
        root.expand(horizontally: true, vertically: true)
    }

    /// `rows` nil: the search is under way.
    func show(_ term: String, _ rows: [SearchRow]?) {
        heading.text = rows == nil ? "Searching the directories for “\(term)”…" : "The directories for “\(term)”"
        self.rows = rows ?? []
        empty.isVisible = rows?.isEmpty == true
        scrolled.isVisible = !self.rows.isEmpty
        list.reload(count: self.rows.count)
    }
}
