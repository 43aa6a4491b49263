import Foundation
import PodsClient
import PodsGtk

/// The subscriptions, as podsd lists them, with a field to subscribe by a
/// feed's address. Rows are read again whenever `PodcastsChanged` arrives.
@MainActor
final class PodcastsPage {
    let root = Box(vertical: true)
    private(set) var rows: [PodcastRow] = []
    private let address = Entry(name: "Feed address", placeholder: "Subscribe to a feed’s address (https://…)")
    private let empty = StatusPage(icon: "audio-x-generic-symbolic", title: "No podcasts yet",
                                   description: "Subscribe to a feed by its address above.")
    private var list: ListView<ListRow<PodcastRow>>!
    private var scrolled: Scrolled!

    /// Podcasts being unsubscribed from: gone from the list while their Undo shows.
    var hidden: Set<Int64> = [] { didSet { show(all) } }
    private var all: [PodcastRow] = []

    init(subscribe: @escaping @MainActor (String) -> Void, open: @escaping @MainActor (PodcastRow) -> Void,
         unsubscribe: @escaping @MainActor (PodcastRow) -> Void) {
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
        let take: @MainActor () -> Void = { [unowned self] in
            let url = self.address.text.trimmingCharacters(in: .whitespaces)
            guard !url.isEmpty else { return }
            self.address.text = ""
            subscribe(url)
        }
        subscribeButton.onClick(take)
        address.onActivate(take)
        address.expand(horizontally: true)
        let bar = Box(vertical: false, spacing: 6)
        bar.margins(8)
        bar.append(address)
        bar.append(subscribeButton)
        root.append(bar)
        root.append(empty)
        empty.expand(horizontally: true, vertically: true)
        scrolled = Scrolled(list)
        root.append(scrolled)
        root.size(width: 360)
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
