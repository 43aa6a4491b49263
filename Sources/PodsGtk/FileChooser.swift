import CGtk

/// The desktop's file chooser (`GtkFileChooserNative`: the portal's inside
/// a sandbox, GTK's own dialog outside), for one file to open or save.
/// The answer comes back once, on the main thread: a path, or nil when
/// the listener cancelled.
@MainActor
public enum FileChooser {
    public enum Purpose { case open, save(suggestedName: String) }

    /// `patterns`: the files offered (`*.opml`), under `filterName`; `folder`: where it starts.
    public static func ask(over window: Window, title: String, accept: String, purpose: Purpose, filterName: String,
                           patterns: [String], folder: String?, _ answer: @escaping @MainActor (String?) -> Void) {
        let action: GtkFileChooserAction
        if case .save = purpose { action = GTK_FILE_CHOOSER_ACTION_SAVE } else { action = GTK_FILE_CHOOSER_ACTION_OPEN }
        let dialog = gtk_file_chooser_native_new(DisplaySafe.text(title), pods_window(window.raw), action, accept, "Cancel")!
        let raw = UnsafeMutableRawPointer(dialog)
        let chooser = pods_file_chooser(raw)
        let filter = gtk_file_filter_new()!
        gtk_file_filter_set_name(filter, filterName)
        for pattern in patterns { gtk_file_filter_add_pattern(filter, pattern) }
        gtk_file_chooser_add_filter(chooser, filter)
        g_object_unref(UnsafeMutableRawPointer(filter))
        if let folder, let start = g_file_new_for_path(folder) {
            _ = gtk_file_chooser_set_current_folder(chooser, start, nil)
            g_object_unref(UnsafeMutableRawPointer(start))
        }
        if case .save(let name) = purpose { gtk_file_chooser_set_current_name(chooser, DisplaySafe.text(name)) }
        // The dialog is held until it answers, then let go.
        Signals.connect(raw, "response", index: { response in
            var path: String?
            if Int32(truncatingIfNeeded: response) == GTK_RESPONSE_ACCEPT.rawValue, let file = gtk_file_chooser_get_file(chooser) {
                if let text = g_file_get_path(file) {
                    path = String(cString: text)
                    g_free(text)
                }
                g_object_unref(UnsafeMutableRawPointer(file))
            }
            answer(path)
            g_object_unref(raw)
        })
        gtk_native_dialog_show(pods_native_dialog(raw))
    }
}
