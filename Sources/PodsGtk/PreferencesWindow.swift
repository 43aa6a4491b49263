import CGtk

/// A window of settings over the main one (`AdwPreferencesWindow`, one
/// page of one group): each row a title, its help under it, and the
/// control that changes it at its end. Titles and help are plain text.
@MainActor
public final class PreferencesWindow: Widget {
    private let group: UnsafeMutableRawPointer
    private var rows: [Widget] = []

    /// `title`: the window's and the group's; `description` under it.
    public init(over parent: Window, title: String, description: String) {
        let page = adw_preferences_page_new()!
        group = UnsafeMutableRawPointer(adw_preferences_group_new()!)
        super.init(taking: adw_preferences_window_new())
        gtk_window_set_title(pods_window(raw), DisplaySafe.text(title))
        gtk_window_set_transient_for(pods_window(raw), pods_window(parent.raw))
        gtk_window_set_modal(pods_window(raw), 1)
        gtk_window_set_default_size(pods_window(raw), 640, 600)
        gtk_window_set_hide_on_close(pods_window(raw), 0)
        adw_preferences_window_set_search_enabled(pods_preferences_window(raw), 0)
        adw_preferences_group_set_title(pods_preferences_group(group), DisplaySafe.text(title))
        adw_preferences_group_set_description(pods_preferences_group(group), DisplaySafe.text(description))
        adw_preferences_page_set_title(pods_preferences_page(UnsafeMutableRawPointer(page)), DisplaySafe.text(title))
        adw_preferences_page_add(pods_preferences_page(UnsafeMutableRawPointer(page)), pods_preferences_group(group))
        adw_preferences_window_add(pods_preferences_window(raw), pods_preferences_page(UnsafeMutableRawPointer(page)))
    }

    /// A row: `title`, `help` under it, `controls` at its end.
    public func add(title: String, help: String, controls: [Widget]) {
        let row = Widget(taking: adw_action_row_new())
        adw_preferences_row_set_use_markup(pods_preferences_row(row.raw), 0)
        adw_preferences_row_set_title(pods_preferences_row(row.raw), DisplaySafe.text(title))
        adw_action_row_set_subtitle(pods_action_row(row.raw), DisplaySafe.text(help))
        for control in controls {
            control.align(vertical: .center)
            adw_action_row_add_suffix(pods_action_row(row.raw), control.widget)
        }
        rows.append(row)
        rows += controls
        adw_preferences_group_add(pods_preferences_group(group), row.widget)
    }

    /// A short message over the settings (a value podsd refused, in its words).
    public func toast(_ text: String) {
        adw_preferences_window_add_toast(pods_preferences_window(raw), AdwaitaGaps.plainToast(text))  // transfer full
        AdwaitaGaps.giveSoon(under: self)
    }

    public func present() {
        gtk_window_present(pods_window(raw))
        AdwaitaGaps.give(under: widget)
    }

    public func close() { gtk_window_close(pods_window(raw)) }
}
