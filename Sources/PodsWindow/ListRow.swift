import PodsGtk

/// A list row as the window's lists show one: a title, a dimmed line under
/// it, and flat buttons at the end (Open, Play, Details) that do the row's
/// actions, each named for screen readers by what it acts on ("Play
/// Episode 3"). `Item` is the row's value, kept so a button acts on the
/// row the view is bound to now.
@MainActor
final class ListRow<Item> {
    /// One of a row's buttons: its icon, its name for the row's title, what it does.
    struct Action {
        let icon: String
        let name: @MainActor (String) -> String
        let body: @MainActor (Item) -> Void

        init(icon: String, name: @escaping @MainActor (String) -> String, body: @escaping @MainActor (Item) -> Void) {
            (self.icon, self.name, self.body) = (icon, name, body)
        }

        /// Named "`verb` title" ("Play Episode 3").
        init(icon: String, verb: String, body: @escaping @MainActor (Item) -> Void) {
            self.init(icon: icon, name: { "\(verb) \($0)" }, body: body)
        }
    }

    let root = Box(vertical: false, spacing: 8)
    private let title = Label()
    private let detail = Label()
    private let buttons: [(button: Button, action: Action)]
    private var item: Item?

    init(headingStyle: Bool, _ actions: [Action]) {
        buttons = actions.map { (Button(icon: $0.icon, name: $0.name("")), $0) }
        root.margins(top: headingStyle ? 8 : 6, bottom: headingStyle ? 8 : 6, start: 12, end: 12)
        let text = Box(vertical: true, spacing: 2)
        text.expand(horizontally: true)
        title.ellipsize()
        if headingStyle { title.style("heading") }
        detail.ellipsize()
        detail.style("dim-label")
        text.append(title)
        text.append(detail)
        root.append(text)
        for (button, action) in buttons {
            button.style("flat")
            button.align(vertical: .center)
            button.onClick { [unowned self] in if let item = self.item { action.body(item) } }
            root.append(button)
        }
    }

    /// Binds the row to `item`; its name for screen readers ("title, detail").
    func show(_ item: Item, title: String, detail: String) -> String {
        self.item = item
        self.title.text = title
        self.detail.text = detail
        for (button, action) in buttons { button.icon(action.icon, name: action.name(title)) }
        return "\(title), \(detail)"
    }
}
