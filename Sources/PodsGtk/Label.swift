import CGtk

/// Text (`GtkLabel`), always plain: nothing from outside is read as Pango
/// markup, so a title's `<` is a `<`.
@MainActor
public final class Label: Widget {
    public init(_ text: String = "") {
        super.init(taking: gtk_label_new(nil))
        self.text = text
        gtk_label_set_xalign(pods_label(raw), 0)
    }

    public var text: String {
        get { String(cString: gtk_label_get_text(pods_label(raw))) }
        set { gtk_label_set_text(pods_label(raw), DisplaySafe.text(newValue)) }
    }

    /// Ends a line too long with "…" instead of widening the window.
    public func ellipsize() { gtk_label_set_ellipsize(pods_label(raw), PANGO_ELLIPSIZE_END) }

    /// Breaks long text into lines at words (inside a word too long for one)
    /// and lets it be selected and copied, as show notes are read.
    public func wrap(selectable: Bool = false) {
        gtk_label_set_wrap(pods_label(raw), 1)
        gtk_label_set_wrap_mode(pods_label(raw), PANGO_WRAP_WORD_CHAR)
        gtk_label_set_selectable(pods_label(raw), selectable ? 1 : 0)
    }
}
