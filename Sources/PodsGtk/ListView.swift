import CGtk

/// A list of any length (`GtkListView` over a model of row numbers): the
/// rows stay in the caller's Swift array and GTK asks only for those it
/// shows, recycling about one screen of row views. `Row` is the caller's
/// row view, made once per recycled widget and bound to a row number.
@MainActor
public final class ListView<Row: AnyObject>: Widget {
    private let model: OpaquePointer
    private var views: [UnsafeMutableRawPointer: (row: Row, root: Widget)] = [:]
    private var count = 0

    /// `make`: a new row view and the widget that shows it; `bind`: fill a
    /// view with row `index` and give the row's name for screen readers.
    public init(name: String, make: @escaping @MainActor () -> (Row, Widget), bind: @escaping @MainActor (Row, Int) -> String) {
        model = pods_row_model_new()
        let factory = gtk_signal_list_item_factory_new()!
        g_object_ref(UnsafeMutableRawPointer(model))  // the selection takes one reference; ours keeps the model for splice
        let selection = gtk_no_selection_new(pods_list_model(UnsafeMutableRawPointer(model)))
        super.init(taking: gtk_list_view_new(pods_selection(UnsafeMutableRawPointer(selection!)), factory))
        self.name(name)
        let rawFactory = UnsafeMutableRawPointer(factory)
        Signals.connect(rawFactory, "setup", item: { [unowned self] item in
            let (row, root) = make()
            gtk_list_item_set_child(pods_list_item(item), root.widget)
            self.views[item] = (row, root)
        })
        Signals.connect(rawFactory, "bind", item: { [unowned self] item in
            guard let view = self.views[item], let object = gtk_list_item_get_item(pods_list_item(item)) else { return }
            let name = bind(view.row, Int(pods_row_get_index(object)))
            // GTK 4.8 has no GtkListItem:accessible-label: the row widget is the child's parent.
            if let rowWidget = gtk_widget_get_parent(view.root.widget) { pods_accessible_set_label(rowWidget, DisplaySafe.text(name)) }
        })
        Signals.connect(rawFactory, "teardown", item: { [unowned self] item in self.views[item] = nil })
    }

    isolated deinit { g_object_unref(UnsafeMutableRawPointer(model)) }

    /// The rows are now `count` long: everything shown is bound again.
    public func reload(count newCount: Int) {
        let old = count
        count = max(0, min(newCount, Int(UInt32.max)))
        pods_row_model_splice(model, 0, UInt32(old), UInt32(count))
    }

    /// Rows `range` changed in place (one episode's progress): only they are bound again.
    public func changed(_ range: Range<Int>) {
        let rows = range.clamped(to: 0..<count)
        guard !rows.isEmpty else { return }
        pods_row_model_splice(model, UInt32(rows.lowerBound), UInt32(rows.count), UInt32(rows.count))
    }

    /// A row activated (Enter, a click on a row, a screen reader's action).
    public func onActivate(_ body: @escaping @MainActor (Int) -> Void) {
        gtk_list_view_set_single_click_activate(pods_list_view(raw), 0)
        Signals.connect(raw, "activate", index: body)
    }
}
