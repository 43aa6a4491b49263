import CGtk

/// Bars drawn with GTK's own drawing (`GtkDrawingArea` and cairo), no
/// plotting stack: one bar per value, its label under it. A screen reader
/// is told the same figures in words (`show`'s `words`).
@MainActor
public final class BarChart: Widget {
    /// The bars, shared with the draw function (GLib holds a reference until the area goes).
    final class Bars {
        var values: [(label: String, value: Double)] = []
    }

    private let bars = Bars()

    public init(name: String, height: Int) {
        super.init(taking: pods_drawing_area_new_image())
        self.name(name)
        size(height: height)
        expand(horizontally: true)
        let draw: GtkDrawingAreaDrawFunc = { _, cairo, width, height, data in
            guard let cairo, let data else { return }
            let bars = Unmanaged<Bars>.fromOpaque(data).takeUnretainedValue()
            BarChart.draw(bars.values, cairo, Double(width), Double(height))
        }
        let release: GDestroyNotify = { data in
            guard let data else { return }
            Unmanaged<Bars>.fromOpaque(data).release()
        }
        gtk_drawing_area_set_draw_func(pods_drawing_area(raw), draw, Unmanaged.passRetained(bars).toOpaque(), release)
    }

    /// Shows `values` (at most 520 bars; labels cut to 12 characters) and says `words` of them.
    public func show(_ values: [(label: String, value: Double)], words: String) {
        bars.values = values.suffix(520).map { (String(DisplaySafe.text($0.label).prefix(12)), $0.value.isFinite ? max(0, $0.value) : 0) }
        pods_accessible_set_value_text(raw, DisplaySafe.text(words))
        name(words)
        gtk_widget_queue_draw(widget)
    }

    /// Called on the main thread by GTK's draw function.
    nonisolated static func draw(_ values: [(label: String, value: Double)], _ cairo: OpaquePointer, _ width: Double, _ height: Double) {
        guard !values.isEmpty, width > 0, height > 24 else { return }
        let top = values.map(\.value).max() ?? 0
        let slot = width / Double(values.count), chart = height - 18
        // Adwaita's accent blue; labels in its dark grey.
        cairo_set_source_rgb(cairo, 0.21, 0.52, 0.89)
        for (index, bar) in values.enumerated() {
            let share = top > 0 ? bar.value / top : 0
            let barHeight = max(share * (chart - 4), bar.value > 0 ? 1 : 0)
            cairo_rectangle(cairo, Double(index) * slot + slot * 0.15, chart - barHeight, slot * 0.7, barHeight)
        }
        cairo_fill(cairo)
        guard slot >= 34 else { return }  // no room under narrow bars for their labels
        cairo_set_source_rgb(cairo, 0.24, 0.24, 0.24)
        cairo_set_font_size(cairo, 10)
        for (index, bar) in values.enumerated() {
            cairo_move_to(cairo, Double(index) * slot + slot * 0.15, height - 4)
            cairo_show_text(cairo, bar.label)
        }
    }
}
