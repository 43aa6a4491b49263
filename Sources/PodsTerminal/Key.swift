/// A key the terminal read.
public enum Key: Hashable, Sendable {
    case character(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, backspace, delete, tab
    case function(Int)
    /// The terminal changed size.
    case resize

    /// The key's name as the config file's `[keys]` and the help spell it:
    /// a character as itself, the others by name (`up`, `pgdn`, `enter`, `f1`…).
    public var name: String {
        switch self {
        case .character(" "): "space"
        case .character(let character): String(character)
        case .up: "up"
        case .down: "down"
        case .left: "left"
        case .right: "right"
        case .pageUp: "pgup"
        case .pageDown: "pgdn"
        case .home: "home"
        case .end: "end"
        case .enter: "enter"
        case .escape: "esc"
        case .backspace: "backspace"
        case .delete: "delete"
        case .tab: "tab"
        case .function(let number): "f\(number)"
        case .resize: "resize"
        }
    }

    /// The key a name names (`name`'s inverse); nil for no key.
    public init?(name: String) {
        let named: [String: Key] = [
            "space": .character(" "), "up": .up, "down": .down, "left": .left, "right": .right, "pgup": .pageUp,
            "pgdn": .pageDown, "home": .home, "end": .end, "enter": .enter, "esc": .escape, "backspace": .backspace,
            "delete": .delete, "tab": .tab,
        ]
        if let key = named[name.lowercased()] { self = key; return }
        if name.count == 1, let character = name.first, DisplayText.width(of: character) > 0 { self = .character(character); return }
        if name.lowercased().hasPrefix("f"), let number = Int(name.dropFirst()), (1...12).contains(number) {
            self = .function(number)
            return
        }
        return nil
    }
}
