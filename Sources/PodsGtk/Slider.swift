import CGtk

/// A horizontal slider (`GtkScale`) whose value the program sets without
/// that being taken for the listener's move, and which says its value in
/// words (`12:34 of 1:00:00`) to a screen reader.
@MainActor
public final class Slider: Widget {
    private var handler: UInt = 0
    private var moved: (@MainActor (Double) -> Void)?

    public init(name: String) {
        super.init(taking: gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 0, 1, 1))
        self.name(name)
        gtk_scale_set_draw_value(pods_scale(raw), 0)
        handler = Signals.connect(raw, "value-changed") { [unowned self] in self.moved?(self.value) }
    }

    /// How far an arrow key moves it (Page Up and Down: five times that).
    public func step(_ step: Double) { gtk_range_set_increments(pods_range(raw), step, step * 5) }

    /// Called when the listener (or an assistive tool) moves it.
    public func onMove(_ body: @escaping @MainActor (Double) -> Void) { moved = body }

    public var value: Double { gtk_range_get_value(pods_range(raw)) }

    /// Sets where the slider stands and its end, and what a screen reader
    /// says of it. Before the end is known the slider stands at its start
    /// (not at `value` seconds of a 1 s stand-in range).
    public func set(_ value: Double, of upper: Double, saying text: String) {
        Signals.blocking(raw, handler) {
            let known = upper.isFinite && upper > 0
            let end = known ? upper : 1
            gtk_range_set_range(pods_range(raw), 0, end)
            gtk_range_set_value(pods_range(raw), known && value.isFinite ? min(max(0, value), end) : 0)
        }
        pods_accessible_set_value_text(raw, text)
    }
}
