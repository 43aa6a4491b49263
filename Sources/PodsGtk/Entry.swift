import CGtk

/// A line of text the listener types (`GtkEntry`).
@MainActor
public final class Entry: Widget {
    public init(name: String, placeholder: String) {
        super.init(taking: gtk_entry_new())
        self.name(name)
        gtk_entry_set_placeholder_text(pods_entry(raw), placeholder)
    }

    public var text: String {
        get { String(cString: gtk_editable_get_text(pods_editable(raw))) }
        set { gtk_editable_set_text(pods_editable(raw), newValue) }
    }

    /// Typed characters shown as dots (a password, a secret key).
    public func hidesText() { gtk_entry_set_visibility(pods_entry(raw), 0) }

    public var placeholder: String {
        get { gtk_entry_get_placeholder_text(pods_entry(raw)).map { String(cString: $0) } ?? "" }
        set { gtk_entry_set_placeholder_text(pods_entry(raw), newValue) }
    }

    /// Enter pressed in it.
    public func onActivate(_ body: @escaping @MainActor () -> Void) { Signals.connect(raw, "activate", body) }
}
