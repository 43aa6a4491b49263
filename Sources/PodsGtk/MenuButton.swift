import CGtk

/// A button that opens a popover with content of its own (`GtkMenuButton`):
/// the player's speed, sleep timer and volume.
@MainActor
public final class MenuButton: Widget {
    private let content: Widget
    private let popover: UnsafeMutablePointer<GtkWidget>

    public init(icon: String? = nil, label: String? = nil, name: String, content: Widget) {
        self.content = content
        popover = gtk_popover_new()
        super.init(taking: gtk_menu_button_new())
        gtk_popover_set_child(pods_popover(UnsafeMutableRawPointer(popover)), content.widget)
        gtk_menu_button_set_popover(pods_menu_button(raw), popover)
        if let icon { gtk_menu_button_set_icon_name(pods_menu_button(raw), icon) }
        if let label { gtk_menu_button_set_label(pods_menu_button(raw), DisplaySafe.text(label)) }
        say(name)
    }

    /// Shows `label` on the button and says `name` of it (Speed becomes "Speed, 1.5×").
    public func set(label: String, name: String) {
        gtk_menu_button_set_label(pods_menu_button(raw), DisplaySafe.text(label))
        say(name)
    }

    public func close() { gtk_menu_button_popdown(pods_menu_button(raw)) }

    private func say(_ name: String) {
        self.name(name)
        tooltip = name
    }
}
