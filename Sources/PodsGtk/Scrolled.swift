import CGtk

/// A scrolling view of one child.
@MainActor
public final class Scrolled: Widget {
    private var child: Widget?

    public init(_ child: Widget) {
        super.init(taking: gtk_scrolled_window_new())
        gtk_scrolled_window_set_policy(pods_scrolled(raw), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        set(child)
        expand(horizontally: true, vertically: true)
    }

    public func set(_ child: Widget) {
        self.child = child
        gtk_scrolled_window_set_child(pods_scrolled(raw), child.widget)
    }
}
