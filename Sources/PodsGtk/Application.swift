import CGtk

/// The GTK application: one instance per desktop session under its id
/// (a second launch activates the first and exits), libadwaita's styling,
/// and Swift's main actor served from GLib's main loop.
@MainActor
public final class Application {
    let raw: UnsafeMutableRawPointer
    private var activated: (@MainActor () -> Void)?

    public init(id: String) {
        let app = adw_application_new(id, G_APPLICATION_DEFAULT_FLAGS)!
        raw = UnsafeMutableRawPointer(app)
        Signals.connect(raw, "activate") { [unowned self] in self.activated?() }
    }

    /// Called at the first launch and at each later one (raise the window then).
    public func onActivate(_ body: @escaping @MainActor () -> Void) { activated = body }

    /// An application action (`app.NAME`) with its keys (`<Control>q`).
    public func action(_ name: String, keys: [String] = [], _ body: @escaping @MainActor () -> Void) {
        let action = g_simple_action_new(name, nil)!
        Signals.connect(action: UnsafeMutableRawPointer(action), body)
        g_action_map_add_action(pods_action_map(raw), action)
        g_object_unref(UnsafeMutableRawPointer(action))
        Self.accelerators(raw, "app.\(name)", keys)
    }

    static func accelerators(_ app: UnsafeMutableRawPointer, _ action: String, _ keys: [String]) {
        guard !keys.isEmpty else { return }
        var strings = keys.map { g_strdup($0) } + [nil]
        defer { strings.forEach { g_free($0) } }
        strings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                gtk_application_set_accels_for_action(pods_application(app), action, $0)
            }
        }
    }

    /// Runs the main loop until the last window closes; the exit status.
    /// The command line is GApplication's own: `--gapplication-service`
    /// (as the bus starts it) waits for `Activate` instead of activating.
    public func run() -> Int32 {
        pods_attach_main_queue()
        return g_application_run(pods_gapplication(raw), CommandLine.argc, CommandLine.unsafeArgv)
    }

    public func quit() { g_application_quit(pods_gapplication(raw)) }
}
