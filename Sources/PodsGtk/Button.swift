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

    public var label: String {
        get { gtk_button_get_label(pods_button(raw)).map { String(cString: $0) } ?? "" }
        set { gtk_button_set_label(pods_button(raw), newValue) }
    }

    /// Changes the icon and, with it, the name and tooltip (Play becomes Pause).
    public func icon(_ icon: String, name: String) {
        gtk_button_set_icon_name(pods_button(raw), icon)
        self.name(name)
        tooltip = name
    }

    /// The window action the button runs (`win.play-pause`): disabled with it.
    public func action(_ name: String) { gtk_actionable_set_action_name(OpaquePointer(raw), name) }
}
