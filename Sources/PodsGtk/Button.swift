import CGtk

/// A push button with text or an icon. An icon button is given a name for
/// screen readers and a tooltip together, so it is never unnamed.
@MainActor
public final class Button: Widget {
    public init(_ label: String) {
        super.init(taking: gtk_button_new_with_label(label))
    }

    /// `icon`: a symbolic icon name (`media-playback-start-symbolic`); `name`: what it does, in words.
    public init(icon: String, name: String) {
        super.init(taking: gtk_button_new_from_icon_name(icon))
        self.name(name)
        tooltip = name
    }

    public func onClick(_ body: @escaping @MainActor () -> Void) { Signals.connect(raw, "clicked", body) }

    /// Changes the icon and, with it, the name and tooltip (Play becomes Pause).
    public func icon(_ icon: String, name: String) {
        gtk_button_set_icon_name(pods_button(raw), icon)
        self.name(name)
        tooltip = name
    }
}
