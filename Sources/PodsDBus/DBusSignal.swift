/// A signal received from the bus.
public struct DBusSignal: Sendable {
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
    /// When the connection's thread read it (for latency measurements).
    public var receivedAt: ContinuousClock.Instant
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

    /// Local check; a well-known sender name was already applied by the bus
    /// (messages carry the unique name), so only unique names are compared.
    func matches(_ signal: DBusSignal) -> Bool {
        if let sender, sender.hasPrefix(":"), sender != signal.sender { return false }
        if let path, path.rawValue != signal.path { return false }
        if let interface, interface != signal.interface { return false }
        if let member, member != signal.member { return false }
        return true
    }
}
