import CGtk

/// Pages side by side when the window is wide and one at a time when it is
/// narrow, with back navigation (`AdwLeaflet`: libadwaita 1.2 has no
/// navigation view).
@MainActor
public final class Pages: Widget {
    private var pages: [Widget] = []

    public init() {
        super.init(taking: adw_leaflet_new())
        adw_leaflet_set_can_navigate_back(pods_leaflet(raw), 1)
        adw_leaflet_set_can_unfold(pods_leaflet(raw), 0)
        expand(horizontally: true, vertically: true)
    }

    /// Shows `page`, after every page before it; pages past it are taken away.
    public func push(_ page: Widget, after: Widget?) {
        if let after, let index = pages.firstIndex(where: { $0 === after }) {
            for dropped in pages[(index + 1)...] { adw_leaflet_remove(pods_leaflet(raw), dropped.widget) }
            pages.removeSubrange((index + 1)...)
        }
        if !pages.contains(where: { $0 === page }) {
            pages.append(page)
            _ = adw_leaflet_append(pods_leaflet(raw), page.widget)
        }
        adw_leaflet_set_visible_child(pods_leaflet(raw), page.widget)
    }

    /// Back to `page`.
    public func show(_ page: Widget) { adw_leaflet_set_visible_child(pods_leaflet(raw), page.widget) }
}
