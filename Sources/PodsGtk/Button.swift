import CGtk

/// A push button with text or an icon. An icon button is given a name for
/// screen readers and a tooltip together, so it is never unnamed.
@MainActor
public final class Button: Widget {
    /// `name`: what a screen reader says, where the label alone does not say it all.
    public init(_ label: String, name: String? = nil) {
        super.init(taking: gtk_button_new_with_label(DisplaySafe.text(label)))
        if let name { self.name(name) }
    }

    /// `icon`: a symbolic icon name (`media-playback-start-symbolic`); `name`: what it does, in words.
    public init(icon: String, name: String) {
        super.init(taking: gtk_button_new_from_icon_name(icon))
        self.name(name)
        tooltip = name
    }

    /// Ends a label too long for the window with "…" (a chapter's title from a feed).
    public func ellipsize() {
        guard let child = gtk_button_get_child(pods_button(raw)), pods_is_label(child) != 0 else { return }
        gtk_label_set_ellipsize(pods_label(UnsafeMutableRawPointer(child)), PANGO_ELLIPSIZE_END)
        gtk_label_set_xalign(pods_label(UnsafeMutableRawPointer(child)), 0)
    }

    public func onClick(_ body: @escaping @MainActor () -> Void) { Signals.connect(raw, "clicked", body) }

    /// Changes the icon and, with it, the name and tooltip (Play becomes Pause).
    public func icon(_ icon: String, name: String) {
        gtk_button_set_icon_name(pods_button(raw), icon)
        self.name(name)
        tooltip = name
    }
}
