import CGtk

/// The application's window (`AdwApplicationWindow`): a header bar with a
/// title over the content, toasts over both. Closing it only hides what
/// the window shows; playing is podsd's.
@MainActor
public final class Window: Widget {
    private let application: Application
    private let overlay: UnsafeMutableRawPointer
    /// The Swift side of the content (its handlers capture it unowned): kept as long as the window.
    private let content: Widget
    private let views: ViewStack?
    private let headerBar: UnsafeMutableRawPointer
    private var headerWidgets: [Widget] = []
    private var shownToast: OpaquePointer?

    /// `views`: their switcher becomes the header bar's title.
    public init(_ application: Application, title: String, content: Widget, views: ViewStack? = nil) {
        self.application = application
        self.content = content
        self.views = views
        let window = adw_application_window_new(pods_application(application.raw))!
        overlay = UnsafeMutableRawPointer(adw_toast_overlay_new()!)
        headerBar = UnsafeMutableRawPointer(adw_header_bar_new()!)
        super.init(taking: window)
        gtk_window_set_title(pods_window(raw), title)
        gtk_window_set_default_size(pods_window(raw), 900, 700)
        adw_header_bar_set_title_widget(pods_header_bar(headerBar), views?.switcherTitle.widget ?? adw_window_title_new(title, nil))
        let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_append(pods_box(UnsafeMutableRawPointer(column)), pods_widget(headerBar))
        gtk_box_append(pods_box(UnsafeMutableRawPointer(column)), content.widget)
        adw_toast_overlay_set_child(pods_toast_overlay(overlay), column)
        adw_application_window_set_content(pods_app_window(raw), pods_widget(overlay))
    }

    /// What the shown toast's button does (`win.toast-button`).
    private var toastButton: (@MainActor () -> Void)?
    private var toastButtonAction = false

    /// A short message over the window; with `button`, a button on it (Undo) that does `body`.
    public func toast(_ text: String, button: (label: String, body: @MainActor () -> Void)? = nil) {
        let toast = AdwaitaGaps.plainToast(text)
        toastButton = button?.body
        if let button {
            if !toastButtonAction {
                toastButtonAction = true
                action("toast-button") { [unowned self] in self.toastButton?() }
            }
            adw_toast_set_button_label(toast, button.label)
            adw_toast_set_action_name(toast, "win.toast-button")
        }
        // One toast at a time: a newer message replaces the one showing rather than queueing behind it.
        if let shownToast {
            adw_toast_dismiss(shownToast)
            g_object_unref(UnsafeMutableRawPointer(shownToast))
        }
        g_object_ref(UnsafeMutableRawPointer(toast))
        shownToast = toast
        adw_toast_overlay_add_toast(pods_toast_overlay(overlay), toast)  // transfer full
        AdwaitaGaps.giveSoon(under: self)  // libadwaita 1.2 leaves the toast's dismiss button unnamed
    }

    /// A window action (`win.NAME`) with its keys; buttons name it with `Button.action`.
    public func action(_ name: String, keys: [String] = [], _ body: @escaping @MainActor () -> Void) {
        let action = g_simple_action_new(name, nil)!
        Signals.connect(action: UnsafeMutableRawPointer(action), body)
        g_action_map_add_action(pods_action_map(raw), action)
        g_object_unref(UnsafeMutableRawPointer(action))
        Application.accelerators(application.raw, "win.\(name)", keys)
    }

    /// Opens a web or mail address in the desktop's handler for it: the
    /// portal's `OpenURI` inside a sandbox, the default application outside.
    /// The caller checks the address first.
    public func open(address: String) { gtk_show_uri(pods_window(raw), address, UInt32(GDK_CURRENT_TIME)) }

    public func present() { gtk_window_present(pods_window(raw)) }

    /// A control at the header bar's end (before the window's own buttons).
    public func addToHeader(_ widget: Widget) {
        headerWidgets.append(widget)
        adw_header_bar_pack_end(pods_header_bar(headerBar), widget.widget)
    }

    isolated deinit { if let shownToast { g_object_unref(UnsafeMutableRawPointer(shownToast)) } }
}
