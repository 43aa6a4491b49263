import CGtk

/// A GTK widget seen from Swift. The wrapper holds one strong reference
/// (taken with `g_object_ref_sink`, so a new widget's floating reference
/// becomes its own) and drops it when it goes away; a container holds its
/// children as GTK does. Everything here runs on the main thread, as GTK
/// does: the class is `@MainActor`.
@MainActor
public class Widget {
    /// The GtkWidget (internal: no GTK type leaves this module).
    let raw: UnsafeMutableRawPointer

    init(taking pointer: UnsafeMutablePointer<GtkWidget>) {
        raw = UnsafeMutableRawPointer(pointer)
        g_object_ref_sink(raw)
    }

    isolated deinit { g_object_unref(raw) }

    var widget: UnsafeMutablePointer<GtkWidget> { pods_widget(raw) }

    /// The name a screen reader says (an icon button's label, a list's
    /// purpose); text from outside in it is made safe as a label's is.
    public func name(_ label: String) { pods_accessible_set_label(raw, DisplaySafe.text(label)) }

    public var tooltip: String? {
        get { gtk_widget_get_tooltip_text(widget).map { String(cString: $0) } }
        set { gtk_widget_set_tooltip_text(widget, newValue.map { DisplaySafe.text($0) }) }
    }

    public var isVisible: Bool {
        get { gtk_widget_get_visible(widget) != 0 }
        set { gtk_widget_set_visible(widget, newValue ? 1 : 0) }
    }

    public var isSensitive: Bool {
        get { gtk_widget_get_sensitive(widget) != 0 }
        set { gtk_widget_set_sensitive(widget, newValue ? 1 : 0) }
    }

    public func expand(horizontally: Bool = false, vertically: Bool = false) {
        gtk_widget_set_hexpand(widget, horizontally ? 1 : 0)
        gtk_widget_set_vexpand(widget, vertically ? 1 : 0)
    }

    public func margins(_ all: Int) { margins(top: all, bottom: all, start: all, end: all) }

    public func margins(top: Int, bottom: Int, start: Int, end: Int) {
        gtk_widget_set_margin_top(widget, Int32(clamping: top))
        gtk_widget_set_margin_bottom(widget, Int32(clamping: bottom))
        gtk_widget_set_margin_start(widget, Int32(clamping: start))
        gtk_widget_set_margin_end(widget, Int32(clamping: end))
    }

    public enum Alignment { case fill, start, end, center }

    public func align(horizontal: Alignment? = nil, vertical: Alignment? = nil) {
        func gtk(_ alignment: Alignment) -> GtkAlign {
            switch alignment {
            case .fill: GTK_ALIGN_FILL
            case .start: GTK_ALIGN_START
            case .end: GTK_ALIGN_END
            case .center: GTK_ALIGN_CENTER
            }
        }
        if let horizontal { gtk_widget_set_halign(widget, gtk(horizontal)) }
        if let vertical { gtk_widget_set_valign(widget, gtk(vertical)) }
    }

    public func size(width: Int = -1, height: Int = -1) {
        gtk_widget_set_size_request(widget, Int32(clamping: width), Int32(clamping: height))
    }

    /// A style class of Adwaita's stylesheet (`title-2`, `dim-label`, `flat`, `card`…).
    public func style(_ cssClass: String) { gtk_widget_add_css_class(widget, cssClass) }
}
