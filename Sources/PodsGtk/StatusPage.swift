import CGtk

/// A page that says why there is nothing to show (`AdwStatusPage`).
@MainActor
public final class StatusPage: Widget {
    public init(icon: String, title: String, description: String) {
        super.init(taking: adw_status_page_new())
        adw_status_page_set_icon_name(pods_status_page(raw), icon)
        say(title, description)
    }

    public func say(_ title: String, _ description: String) {
        adw_status_page_set_title(pods_status_page(raw), DisplaySafe.text(title))
        adw_status_page_set_description(pods_status_page(raw), DisplaySafe.text(description))
    }
}
