import Foundation
import PodsClient
import PodsGtk

/// The subscriptions, as podsd lists them, with a field to subscribe by a
/// feed's address. Rows are read again whenever `PodcastsChanged` arrives.
@MainActor
final class PodcastsPage {
    let root = Box(vertical: true)
    private(set) var rows: [PodcastRow] = []
    private let address = Entry(name: "Feed address or words", placeholder: "A feed’s address to subscribe to, or words to search the directories")
    private let empty = StatusPage(icon: "audio-x-generic-symbolic", title: "No podcasts yet",
                                   description: "Subscribe to a feed by its address above, or search the directories for a show.")
    private var list: ListView<ListRow<PodcastRow>>!
    private var scrolled: Scrolled!

    /// Podcasts being unsubscribed from: gone from the list while their Undo shows.
    var hidden: Set<Int64> = [] { didSet { show(all) } }
    private var all: [PodcastRow] = []

    init(subscribe: @escaping @MainActor (String) -> Void, open: @escaping @MainActor (PodcastRow) -> Void,
         unsubscribe: @escaping @MainActor (PodcastRow) -> Void, search: @escaping @MainActor (String) -> Void,
         importOPML: @escaping @MainActor () -> Void, exportOPML: @escaping @MainActor () -> Void) {
        list = ListView(name: "Podcasts",
                        make: {
                            let row = ListRow(headingStyle: true, [.init(icon: "user-trash-symbolic", name: { "Unsubscribe from \($0)" }, body: unsubscribe),
                                                                   .init(icon: "go-next-symbolic", verb: "Open", body: open)])
                            return (row, row.root)
                        },
                        bind: { [unowned self] row, index in
                            let podcast = self.rows[index]
                            return row.show(podcast, title: podcast.title, detail: podcast.summary)
                        })
        list.onActivate { [unowned self] index in if self.rows.indices.contains(index) { open(self.rows[index]) } }
        let subscribeButton = Button("Subscribe")
        let searchButton = Button("Search the directories")
        // An address subscribes; words search the directories (Enter does whichever the text is).
        let take: @MainActor (_ searching: Bool?) -> Void = { [unowned self] searching in
            let text = self.address.text.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { return }
            if searching ?? !Self.looksLikeAnAddress(text) { return search(text) }
            self.address.text = ""
            subscribe(text)
        }
        subscribeButton.onClick { take(false) }
        searchButton.onClick { take(true) }
        address.onActivate { take(nil) }
        address.expand(horizontally: true)
        let bar = Box(vertical: false, spacing: 6)
        bar.margins(8)
        bar.append(address)
        bar.append(subscribeButton)
        bar.append(searchButton)
        let importButton = Button(icon: "document-open-symbolic", name: "Import subscriptions from an OPML file")
        importButton.onClick(importOPML)
        let exportButton = Button(icon: "document-save-symbolic", name: "Export the subscriptions as an OPML file")
        exportButton.onClick(exportOPML)
        bar.append(importButton)
        bar.append(exportButton)
        root.append(bar)
        root.append(empty)
        empty.expand(horizontally: true, vertically: true)
        scrolled = Scrolled(list)
        root.append(scrolled)
        root.size(width: 360)
    }

    /// A feed's address (a URL, `guid:…`, an Apple Podcasts link), not words.
    static func looksLikeAnAddress(_ text: String) -> Bool {
        !text.contains(" ") && (text.contains("://") || text.hasPrefix("guid:") || text.hasPrefix("www."))
    }

    func show(_ podcasts: [PodcastRow]) {
        all = podcasts
        rows = podcasts.filter { !hidden.contains($0.id) }
        empty.isVisible = rows.isEmpty
        scrolled.isVisible = !rows.isEmpty
        list.reload(count: rows.count)
    }
}

extension PodcastRow {
    /// "Author · 3 unplayed of 12" (and the last refresh's error, in words).
    var summary: String {
        var parts = [String]()
        if !author.isEmpty { parts.append(author) }
        parts.append(unplayed > 0 ? "\(unplayed) unplayed of \(episodes)" : "\(episodes) episode\(episodes == 1 ? "" : "s")")
        if let lastError { parts.append("the last refresh failed: \(lastError)") }
        return parts.joined(separator: " · ")
    }
}
