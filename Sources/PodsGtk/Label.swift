import CGtk

/// Text (`GtkLabel`), always plain: nothing from outside is read as Pango
/// markup, so a title's `<` is a `<`.
@MainActor
public final class Label: Widget {
    public init(_ text: String = "", wraps: Bool = false) {
        super.init(taking: gtk_label_new(nil))
        self.text = text
        if wraps {
            gtk_label_set_wrap(pods_label(raw), 1)
            gtk_label_set_wrap_mode(pods_label(raw), PANGO_WRAP_WORD_CHAR)
        }
        gtk_label_set_xalign(pods_label(raw), 0)
    }

    public var text: String {
        get { String(cString: gtk_label_get_text(pods_label(raw))) }
        set { gtk_label_set_text(pods_label(raw), DisplaySafe.text(newValue)) }
    }

    /// Ends a line too long with "…" instead of widening the window.
    public func ellipsize() { gtk_label_set_ellipsize(pods_label(raw), PANGO_ELLIPSIZE_END) }

    public func lines(_ count: Int) { gtk_label_set_lines(pods_label(raw), Int32(clamping: count)) }

    /// The text can be selected and copied.
    public func selectable() { gtk_label_set_selectable(pods_label(raw), 1) }

    public func center() { gtk_label_set_xalign(pods_label(raw), 0.5) }
}
