import CGtk

/// What libadwaita 1.2 leaves to its caller: names for the controls it
/// makes inside its own widgets and leaves unnamed for a screen reader (a
/// toast's dismiss button, a preferences window's search button and
/// entry), and toast titles taken as plain text.
@MainActor
enum AdwaitaGaps {
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

    /// The same under `owner` over the next second: libadwaita makes a
    /// toast's widgets a moment after it is added.
    static func giveSoon(under owner: Widget) {
        Task { [weak owner] in
            for _ in 0..<4 {
                guard let owner else { return }
                give(under: owner.widget)
                try? await Task.sleep(for: .milliseconds(300))
            }
        }
    }

    /// A toast of `text`, plain, for 5 s: libadwaita 1.2 reads a toast's
    /// title as Pango markup (1.4 made that optional), so it is escaped and
    /// a feed's `<` stays a `<`.
    static func plainToast(_ text: String) -> OpaquePointer {
        let escaped = g_markup_escape_text(DisplaySafe.text(text), -1)
        defer { g_free(escaped) }
        let toast = adw_toast_new(escaped)!
        adw_toast_set_timeout(toast, 5)
        return toast
    }
}
