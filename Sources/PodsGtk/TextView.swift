import CGtk

/// Long text to read, select and copy (`GtkTextView`, read-only): it lays
/// out only the lines it shows, so 100,000 characters of show notes open
/// as fast as a paragraph. Plain text, never markup.
@MainActor
public final class TextView: Widget {
    public init(name: String) {
        super.init(taking: gtk_text_view_new())
        self.name(name)
        let view = pods_text_view(raw)
        gtk_text_view_set_editable(view, 0)
        gtk_text_view_set_cursor_visible(view, 0)
        gtk_text_view_set_wrap_mode(view, GTK_WRAP_WORD_CHAR)
        gtk_text_view_set_pixels_below_lines(view, 4)
    }

    /// At most `DisplaySafe.longLimit` characters, without control or bidi-override characters.
    public var text: String {
        get {
            let buffer = gtk_text_view_get_buffer(pods_text_view(raw))
            var start = GtkTextIter(), end = GtkTextIter()
            gtk_text_buffer_get_bounds(buffer, &start, &end)
            guard let text = gtk_text_buffer_get_text(buffer, &start, &end, 0) else { return "" }
            defer { g_free(text) }
            return String(cString: text)
        }
        set {
            let safe = DisplaySafe.text(newValue, limit: DisplaySafe.longLimit)
            gtk_text_buffer_set_text(gtk_text_view_get_buffer(pods_text_view(raw)), safe, -1)
        }
    }
}
