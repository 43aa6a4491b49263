import CGtk

/// Names for the controls libadwaita 1.2 makes inside its own widgets and
/// leaves unnamed for a screen reader: a toast's dismiss button, a
/// preferences window's search button and entry.
@MainActor
enum InternalNames {
    static func give(under widget: UnsafeMutablePointer<GtkWidget>) {
        if pods_is_button(widget) != 0, let icon = gtk_button_get_icon_name(pods_button(widget)) {
            switch String(cString: icon) {
            case "window-close-symbolic": pods_accessible_set_label(widget, "Dismiss")
            case "edit-find-symbolic": pods_accessible_set_label(widget, "Search")
            default: break
            }
        }
        if pods_is_search_entry(widget) != 0 { pods_accessible_set_label(widget, "Search") }
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            give(under: current)
            child = gtk_widget_get_next_sibling(current)
        }
    }
}
