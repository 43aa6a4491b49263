import CGtk

/// A message across the top of the window that stays until what it says
/// is over (`GtkInfoBar`: libadwaita 1.2 has no banner): podsd gone, the
/// library out of reach.
@MainActor
public final class Banner: Widget {
    private let label = Label()

    public init() {
        super.init(taking: gtk_info_bar_new())
        gtk_info_bar_set_message_type(pods_info_bar(raw), GTK_MESSAGE_WARNING)
        label.wrap()
        label.expand(horizontally: true)
        gtk_info_bar_add_child(pods_info_bar(raw), label.widget)
        isVisible = false
    }

    /// Shows `text` (plain), until `hide`.
    public func show(_ text: String) {
        label.text = text
        isVisible = true
        gtk_info_bar_set_revealed(pods_info_bar(raw), 1)
    }

    public func hide() {
        gtk_info_bar_set_revealed(pods_info_bar(raw), 0)
        isVisible = false
    }

    public var text: String? { isVisible ? label.text : nil }
}
