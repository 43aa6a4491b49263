/// A signal received from the bus.
public struct DBusSignal: Sendable {
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
    /// When the connection's thread read it (for latency measurements).
    public var receivedAt: ContinuousClock.Instant
    /// The connection it was sent to; nil for a broadcast.
    public var destination: String? = nil
}

/// Which signals a subscription wants; nil fields match anything.
public struct DBusSignalMatch: Sendable, Hashable {
    public var sender: String?
    public var path: DBusObjectPath?
    public var interface: String?
    public var member: String?

    public init(sender: String? = nil, path: DBusObjectPath? = nil, interface: String? = nil, member: String? = nil) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
    }

    /// The rule for `org.freedesktop.DBus.AddMatch`.
    var rule: String {
        var parts = ["type='signal'"]
        if let sender { parts.append("sender='\(sender)'") }
        if let path { parts.append("path='\(path.rawValue)'") }
        if let interface { parts.append("interface='\(interface)'") }
        if let member { parts.append("member='\(member)'") }
        return parts.joined(separator: ",")
    }

    /// The bus daemon's name, which it alone uses as a sender.
    static let busDriver = "org.freedesktop.DBus"

    /// Local check. The bus applies the rule to broadcast signals, but a
    /// signal sent to this connection by name reaches it whatever the rule
    /// says, from any client (REVIEW-4, N6: any local account paused
    /// playback with a `PrepareForSleep` sent to podsd's system-bus
    /// connection). So the bus daemon's own signals (`NameLost`,
    /// `NameOwnerChanged`), which it sends as `org.freedesktop.DBus` and no
    /// client can, are checked by that name here; a unique name is compared
    /// as it is (messages carry the sender's unique name); and for another
    /// well-known name only a broadcast counts, which the bus delivers by
    /// the rule, so only from that name's owner of the moment. (A service
    /// that signals its callers one by one is matched by its owner's unique
    /// name: `DBusConnection.owner(of:)`.)
    func matches(_ signal: DBusSignal) -> Bool {
        if let sender {
            if sender == Self.busDriver || sender.hasPrefix(":") {
                guard sender == signal.sender else { return false }
            } else if signal.destination != nil {
                return false
            }
        }
        if let path, path.rawValue != signal.path { return false }
        if let interface, interface != signal.interface { return false }
        if let member, member != signal.member { return false }
        return true
    }
}
