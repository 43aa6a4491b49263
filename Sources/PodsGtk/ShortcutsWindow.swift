import CGtk
import Foundation

/// The window of keyboard shortcuts (`GtkShortcutsWindow`), opened with
/// Ctrl+? or F1 (`win.show-help-overlay`). GTK 4.8 builds one only from
/// GtkBuilder's XML, so it is written from the groups given, every text
/// escaped.
@MainActor
public enum ShortcutsWindow {
    /// One group of shortcuts: its title, and each shortcut's words and accelerator (`<Control>space`).
    public struct Group {
        public let title: String
        public let shortcuts: [(title: String, accelerator: String)]

        public init(_ title: String, _ shortcuts: [(title: String, accelerator: String)]) {
            (self.title, self.shortcuts) = (title, shortcuts)
        }
    }

    /// Gives `window` its shortcuts window.
    public static func attach(to window: Window, application: Application, _ groups: [Group]) {
        let builder = gtk_builder_new_from_string(xml(groups), -1)!
        defer { g_object_unref(UnsafeMutableRawPointer(builder)) }
        guard let shortcuts = gtk_builder_get_object(builder, "shortcuts") else { return }
        gtk_application_window_set_help_overlay(pods_gtk_app_window(window.raw), pods_shortcuts_window(UnsafeMutableRawPointer(shortcuts)))
        Application.accelerators(application.raw, "win.show-help-overlay", ["<Control>question", "F1"])
    }

    static func xml(_ groups: [Group]) -> String {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        func property(_ name: String, _ value: String) -> String { "<property name=\"\(name)\">\(escaped(value))</property>" }
        var text = "<interface><object class=\"GtkShortcutsWindow\" id=\"shortcuts\">" + property("modal", "1")
            + "<child><object class=\"GtkShortcutsSection\">" + property("section-name", "shortcuts")
        for group in groups {
            text += "<child><object class=\"GtkShortcutsGroup\">" + property("title", group.title)
            for shortcut in group.shortcuts {
                text += "<child><object class=\"GtkShortcutsShortcut\">" + property("title", shortcut.title)
                    + property("accelerator", shortcut.accelerator) + "</object></child>"
            }
            text += "</object></child>"
        }
        return text + "</object></child></object></interface>"
    }
}
