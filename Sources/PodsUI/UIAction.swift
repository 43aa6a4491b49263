import PodsTerminal

/// Everything a key can do in `pods ui`.
public enum UIAction: String, CaseIterable, Sendable {
    case up, down, pageUp = "page-up", pageDown = "page-down", top, bottom
    case focusLeft = "focus-left", focusRight = "focus-right"
    case activate, playPause = "play-pause", enqueue, download, markPlayed = "mark-played"
    case next, previous, skipForward = "skip-forward", skipBack = "skip-back", faster, slower
    case openLink = "open-link", subscribe, refresh, filter, help, quit
    case layoutPodcasts = "layout-1", layoutQueue = "layout-2", layoutDownloads = "layout-3"
    case layoutNewest = "layout-4", layoutSearch = "layout-5", layoutBookmarks = "layout-6", layoutPlaylists = "layout-7"
    case layoutListening = "layout-8", layoutTranscript = "layout-9", layoutFound = "layout-0"

    /// What the help overlay says it does.
    public var help: String {
        switch self {
        case .up: "move up"
        case .down: "move down"
        case .pageUp: "a page up"
        case .pageDown: "a page down"
        case .top: "to the first row"
        case .bottom: "to the last row"
        case .focusLeft: "the pane to the left"
        case .focusRight: "the pane to the right"
        case .activate: "play; in the details, open a link or go to a chapter"
        case .playPause: "play or pause"
        case .enqueue: "add the episode to the queue"
        case .download: "download the episode"
        case .markPlayed: "mark played or unplayed"
        case .next: "next chapter, then next episode"
        case .previous: "previous chapter, then previous episode"
        case .skipForward: "skip forward"
        case .skipBack: "skip back"
        case .faster: "speed up by 0.1×"
        case .slower: "slow down by 0.1×"
        case .openLink: "open a link of the page by its number"
        case .subscribe: "subscribe by URL; search in layouts 5 and 0"
        case .refresh: "refresh the podcast (all of them elsewhere)"
        case .filter: "filter the list as you type; Esc clears"
        case .help: "this help"
        case .quit: "quit (playback goes on)"
        case .layoutPodcasts: "podcasts, episodes and details"
        case .layoutQueue: "the queue and details"
        case .layoutDownloads: "downloads and details"
        case .layoutNewest: "every episode, newest first, and details"
        case .layoutSearch: "search the directories and subscribe"
        case .layoutBookmarks: "bookmarks (Enter plays from one) and details"
        case .layoutPlaylists: "the queue and playlists (Enter: it plays next)"
        case .layoutListening: "hours heard and saved, by podcast and week"
        case .layoutTranscript: "the transcript, following playback (Enter: go to a line)"
        case .layoutFound: "find words heard (Enter: play from there)"
        }
    }
}

/// Which key does what: the defaults (arrows and vim keys, castero's
/// layout numbers) with the config file's `[keys]` over them.
public struct KeyMap: Sendable {
    public private(set) var actions: [Key: UIAction]

    public static let defaults: [Key: UIAction] = [
        .up: .up, .character("k"): .up, .down: .down, .character("j"): .down,
        .pageUp: .pageUp, .pageDown: .pageDown, .home: .top, .character("g"): .top, .end: .bottom, .character("G"): .bottom,
        .left: .focusLeft, .character("h"): .focusLeft, .right: .focusRight, .character("l"): .focusRight, .tab: .focusRight,
        .enter: .activate, .character(" "): .playPause, .character("a"): .enqueue, .character("d"): .download,
        .character("m"): .markPlayed, .character("n"): .next, .character("p"): .previous,
        .character("f"): .skipForward, .character("b"): .skipBack, .character("+"): .faster, .character("="): .faster,
        .character("-"): .slower, .character("o"): .openLink, .character("s"): .subscribe, .character("r"): .refresh, .character("/"): .filter,
        .character("?"): .help, .character("q"): .quit,
        .character("1"): .layoutPodcasts, .character("2"): .layoutQueue, .character("3"): .layoutDownloads,
        .character("4"): .layoutNewest, .character("5"): .layoutSearch, .character("6"): .layoutBookmarks,
        .character("7"): .layoutPlaylists, .character("8"): .layoutListening, .character("9"): .layoutTranscript, .character("0"): .layoutFound,
    ]

    public init() { actions = Self.defaults }

    /// The defaults with `bindings` (action name → key names, as `[keys]`
    /// holds them: `play-pause = ["space", "P"]`) over them; a binding
    /// replaces every default key of its action. Throws one line naming
    /// the first unknown action or key.
    public init(bindings: [String: [String]]) throws(KeyMapError) {
        var actions = Self.defaults
        var bound: [Key: UIAction] = [:]
        for (name, keys) in bindings.sorted(by: { $0.key < $1.key }) {
            guard let action = UIAction(rawValue: name) else {
                throw KeyMapError("[keys] \(name): no such action (the actions: \(UIAction.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            guard !keys.isEmpty else { throw KeyMapError("[keys] \(name): name at least one key") }
            var parsed: [Key] = []
            for keyName in keys {
                guard let key = Key(name: keyName), key != .resize else {
                    throw KeyMapError("[keys] \(name): '\(keyName.prefix(20))' is no key (a character, or up, down, pgup, pgdn, home, end, enter, esc, tab, space, f1…f12)")
                }
                if let other = bound[key], other.rawValue != name {
                    throw KeyMapError("[keys] \(keyName) is given to both \(other.rawValue) and \(name)")
                }
                if let action = UIAction(rawValue: name) { bound[key] = action }
                parsed.append(key)
            }
            actions = actions.filter { $0.value != action }
            for key in parsed { actions[key] = action }
        }
        guard actions.values.contains(.quit) else { throw KeyMapError("[keys] leaves quit without a key") }
        self.actions = actions
    }

    public func action(for key: Key) -> UIAction? { actions[key] }

    /// The keys of `action`, sorted, as the help shows them.
    public func keys(of action: UIAction) -> [String] {
        actions.filter { $0.value == action }.map(\.key.name).sorted { ($0.count, $0) < ($1.count, $1) }
    }
}

/// Why the `[keys]` table could not be used.
public struct KeyMapError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
