import PodsGtk

/// A list row as the window's lists show one: a title, a dimmed line under
/// it, and one flat button at the end (Open, Play) that does the row's
/// action, named for screen readers by what it acts on. `Item` is the row's
/// value, kept so the button acts on the row the view is bound to now.
@MainActor
final class ListRow<Item> {
    let root = Box(vertical: false, spacing: 8)
    private let title = Label()
    private let detail = Label()
    private let button: Button
    private let icon: String
    private let verb: String
    private var item: Item?

    init(icon: String, verb: String, headingStyle: Bool, _ action: @escaping @MainActor (Item) -> Void) {
        (self.icon, self.verb) = (icon, verb)
        button = Button(icon: icon, name: verb)
        root.margins(top: headingStyle ? 8 : 6, bottom: headingStyle ? 8 : 6, start: 12, end: 12)
        let text = Box(vertical: true, spacing: 2)
        text.expand(horizontally: true)
        title.ellipsize()
        if headingStyle { title.style("heading") }
        detail.ellipsize()
        detail.style("dim-label")
        text.append(title)
        text.append(detail)
        button.style("flat")
        button.align(vertical: .center)
        button.onClick { [unowned self] in if let item = self.item { action(item) } }
        root.append(text)
        root.append(button)
    }

    /// Binds the row to `item`; its name for screen readers ("title, detail").
    func show(_ item: Item, title: String, detail: String) -> String {
        self.item = item
        self.title.text = title
        self.detail.text = detail
        button.icon(icon, name: "\(verb) \(title)")
        return "\(title), \(detail)"
    }
}
