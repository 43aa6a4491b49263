import CGtk

/// On or off (`GtkSwitch`), set by the program without that being taken
/// for the listener's flip.
@MainActor
public final class Switch: Widget {
    private var handler: UInt = 0
    private var flipped: (@MainActor (Bool) -> Void)?

    public init(name: String) {
        super.init(taking: gtk_switch_new())
        self.name(name)
        handler = Signals.connect(raw, notify: "active") { [unowned self] in self.flipped?(self.isOn) }
    }

    public var isOn: Bool {
        get { gtk_switch_get_active(pods_switch(raw)) != 0 }
        set { Signals.blocking(raw, handler) { gtk_switch_set_active(pods_switch(raw), newValue ? 1 : 0) } }
    }

    /// Called when the listener (or an assistive tool) flips it.
    public func onFlip(_ body: @escaping @MainActor (Bool) -> Void) { flipped = body }
}
