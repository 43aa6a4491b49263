import CGtk

/// A row or column of widgets (`GtkBox`). It keeps its children's Swift
/// side as long as they are in it, so their handlers' captures stay alive.
@MainActor
public final class Box: Widget {
    private var children: [Widget] = []

    public init(vertical: Bool, spacing: Int = 0) {
        super.init(taking: gtk_box_new(vertical ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL, Int32(clamping: spacing)))
    }

    public func append(_ child: Widget) {
        children.append(child)
        gtk_box_append(pods_box(raw), child.widget)
    }

    /// Takes every child out (a page shown again for another episode).
    public func removeAll() {
        for child in children { gtk_box_remove(pods_box(raw), child.widget) }
        children = []
    }
}
