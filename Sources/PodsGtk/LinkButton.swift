import CGtk

/// A link (`GtkLinkButton`: a screen reader meets it as a link) whose
/// address the program opens itself: GTK's own handler never runs, so
/// nothing opens that the caller did not check.
@MainActor
public final class LinkButton: Widget {
    public init(_ text: String, address: String, name: String? = nil) {
        super.init(taking: gtk_link_button_new_with_label(DisplaySafe.text(address), DisplaySafe.text(text)))
        if let name { self.name(name) }
        tooltip = address
        gtk_widget_set_halign(widget, GTK_ALIGN_START)
        if let child = gtk_button_get_child(pods_button(raw)), pods_is_label(child) != 0 {
            gtk_label_set_wrap(pods_label(UnsafeMutableRawPointer(child)), 1)
            gtk_label_set_wrap_mode(pods_label(UnsafeMutableRawPointer(child)), PANGO_WRAP_WORD_CHAR)
            gtk_label_set_xalign(pods_label(UnsafeMutableRawPointer(child)), 0)
        }
    }

    /// Called instead of GTK's opening of the address (a click, Enter, a screen reader's action).
    public func onActivate(_ body: @escaping @MainActor () -> Void) { Signals.connectHandled(raw, "activate-link", body) }
}
