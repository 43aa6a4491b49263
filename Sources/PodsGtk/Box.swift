import CGtk

/// A row or column of widgets (`GtkBox`).
@MainActor
public final class Box: Widget {
    public init(vertical: Bool, spacing: Int = 0) {
        super.init(taking: gtk_box_new(vertical ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL, Int32(clamping: spacing)))
    }

    public func append(_ child: Widget) { gtk_box_append(pods_box(raw), child.widget) }
}
