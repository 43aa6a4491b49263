import CGtk

/// The views the listener switches between (`AdwViewStack`): a switcher
/// in the header bar while the window is wide, and a bar at the bottom
/// (`switcherBar`) once it is too narrow for that, as on a phone.
@MainActor
public final class ViewStack: Widget {
    /// The header bar's title: the switcher, or the window's title when narrow.
    let switcherTitle: Widget
    /// Shown below the views when the header bar has no room for the switcher.
    public let switcherBar: Widget
    private var views: [Widget] = []
    private var switched: (@MainActor (String) -> Void)?

    public init(title: String) {
        let stack = adw_view_stack_new()!
        switcherTitle = Widget(taking: adw_view_switcher_title_new())
        switcherBar = Widget(taking: adw_view_switcher_bar_new())
        super.init(taking: stack)
        adw_view_switcher_title_set_stack(pods_view_switcher_title(switcherTitle.raw), pods_view_stack(raw))
        adw_view_switcher_title_set_title(pods_view_switcher_title(switcherTitle.raw), title)
        adw_view_switcher_bar_set_stack(pods_view_switcher_bar(switcherBar.raw), pods_view_stack(raw))
        g_object_bind_property(switcherTitle.raw, "title-visible", switcherBar.raw, "reveal", G_BINDING_SYNC_CREATE)
        expand(horizontally: true, vertically: true)
        Signals.connect(raw, notify: "visible-child-name") { [unowned self] in self.switched?(self.visibleName) }
    }

    /// Adds a view, named `name` for `show`, shown in the switcher as `title` with `icon`.
    public func add(_ view: Widget, name: String, title: String, icon: String) {
        views.append(view)
        _ = adw_view_stack_add_titled(pods_view_stack(raw), view.widget, name, title)
        if let page = adw_view_stack_get_page(pods_view_stack(raw), view.widget) { adw_view_stack_page_set_icon_name(page, icon) }
    }

    public func show(_ name: String) { adw_view_stack_set_visible_child_name(pods_view_stack(raw), name) }

    public var visibleName: String {
        adw_view_stack_get_visible_child_name(pods_view_stack(raw)).map { String(cString: $0) } ?? ""
    }

    /// Called when another view is shown (by the switcher or `show`).
    public func onSwitch(_ body: @escaping @MainActor (String) -> Void) { switched = body }
}
