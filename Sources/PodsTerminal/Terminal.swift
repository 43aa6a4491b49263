import Foundation
internal import CNcurses

/// The terminal, through ncursesw: full screen, keys one at a time, and a
/// `Canvas` drawn whole (ncurses sends only what changed).
///
/// Not thread-safe, like ncurses: one thread starts it, reads its keys,
/// draws and stops it.
public final class Terminal {
    /// How many colours the terminal shows, as the UI is told (`NO_COLOR`
    /// set, or a terminal without colour: none).
    public enum ColorDepth: Sendable, Equatable {
        case none, basic, palette256, direct
    }

    public let colors: ColorDepth
    private var stopped = false
    private var text: [wchar_t] = []

    /// Takes over the terminal (`setlocale` first, so wide characters
    /// work); `color` false is `NO_COLOR`'s monochrome.
    /// `resizeWake`: a pipe's write end that gets a byte at every resize,
    /// for a thread that waits on its read end in `readKey(…, wake:)`.
    public init(color: Bool, resizeWake: Int32) throws(TerminalError) {
        setlocale(LC_ALL, "")
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else { throw TerminalError("pods ui needs a terminal") }
        if resizeWake >= 0 {
            pods_winch(-(resizeWake + 1))
            var action = sigaction()
            action.__sigaction_handler.sa_handler = pods_winch
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(SIGWINCH, &action, nil)
        }
        // Whatever kills pods ui, the shell gets its terminal back (echo on, the cursor shown, the main screen).
        CrashRestore.arm()
        guard initscr() != nil else { throw TerminalError("the terminal could not be set up (is TERM right?)") }
        cbreak()
        noecho()
        nonl()
        keypad(pods_stdscr(), true)
        set_escdelay(25)
        curs_set(0)
        if color && has_colors() {
            start_color()
            use_default_colors()
            let count = pods_colors()
            colors = count >= 0x1000000 ? .direct : count >= 256 ? .palette256 : .basic
            Self.definePairs(colors)
        } else {
            colors = .none
        }
    }

    deinit { stop() }

    /// Gives the terminal back as it was.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        endwin()
        CrashRestore.disarm()
    }

    /// Rows and columns now.
    public var size: (rows: Int, columns: Int) { (Int(pods_lines()), Int(pods_cols())) }

    /// The next key, or nil when none came within `milliseconds` (-1: wait)
    /// or `wake` (a pipe's read end, drained here) became readable first:
    /// another thread has something for the caller.
    public func readKey(milliseconds: Int32, wake: Int32) -> Key? {
        if resized() { return .resize }
        if let key = nextKey(waiting: 0) { return key }  // ncurses may hold typed-ahead keys already
        var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 2, milliseconds)
        if ready > 0, fds[1].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 256)
            while read(wake, &drain, drain.count) > 0 {}
        }
        if resized() { return .resize }
        // A key: ncurses may need a moment for the rest of an escape sequence (PgDn is four bytes).
        if ready > 0, fds[0].revents != 0 { return nextKey(waiting: 50) }
        return nextKey(waiting: 0)
    }

    /// Whether the terminal's size changed; ncurses is told (its screen and `size` follow).
    private func resized() -> Bool {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 else { return false }
        let (rows, columns) = (Int32(window.ws_row), Int32(window.ws_col))
        guard rows != pods_lines() || columns != pods_cols() else { return false }
        resizeterm(rows, columns)
        return true
    }

    private func nextKey(waiting milliseconds: Int32) -> Key? {
        timeout(milliseconds)
        var code: wint_t = 0
        let result = pods_get_wch(&code)
        if result == KEY_CODE_YES { return Self.functionKey(Int32(code)) }
        guard result == OK else { return nil }
        switch code {
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 9: return .tab
        default:
            guard let scalar = Unicode.Scalar(UInt32(code)), code >= 32 else { return nil }
            return .character(Character(scalar))
        }
    }

    private static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_ENTER: .enter
        case KEY_BACKSPACE: .backspace
        case KEY_DC: .delete
        case pods_key_resize(): .resize
        case KEY_F0 + 1...KEY_F0 + 12: .function(Int(code - KEY_F0))
        default: nil
        }
    }

    /// Draws `canvas` (its size should be `size`: a resize between the two
    /// draws what fits) and shows it.
    public func draw(_ canvas: Canvas) {
        let (rows, columns) = size
        for row in 0..<min(rows, canvas.rows) {
            var column = 0
            let cells = canvas.cells[row]
            while column < min(columns, canvas.columns) {
                let style = cells[column].style
                text.removeAll(keepingCapacity: true)
                let start = column
                while column < min(columns, canvas.columns), cells[column].style == style {
                    for scalar in cells[column].text.unicodeScalars { text.append(wchar_t(bitPattern: scalar.value)) }
                    column += 1
                }
                let (attributes, pair) = Self.look(style, colors)
                _ = pods_attr_set(attributes, pair)
                _ = pods_mvaddnwstr(Int32(row), Int32(start), text, Int32(text.count))
            }
        }
        _ = pods_attr_set(pods_a_normal(), 0)
        refresh()
    }

    /// Writes `bytes` to the terminal as they are, with the cursor at `row`,
    /// `column`, after everything drawn is out: for what ncurses has no
    /// words for (`TerminalPictures`). Whatever the bytes put on the screen,
    /// ncurses does not know of it.
    public func writeThrough(_ bytes: [UInt8], row: Int, column: Int) {
        wmove(pods_stdscr(), Int32(row), Int32(column))
        refresh()  // the cursor goes where it was moved, and ncurses' output is flushed
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
        }
    }

    // MARK: - Colours

    /// The attributes and colour pair of `style` at `depth`.
    private static func look(_ style: Style, _ depth: ColorDepth) -> (attr_t, Int32) {
        var attributes = pods_a_normal()
        if style.bold { attributes |= pods_a_bold() }
        guard depth != .none else {
            switch style.role {
            case .selected, .bar, .barFill, .header: attributes |= pods_a_reverse()
            case .selectedElsewhere: attributes |= pods_a_underline()
            case .title, .accent, .error: attributes |= pods_a_bold()
            case .playing: attributes |= pods_a_bold() | pods_a_underline()
            case .dim, .border: attributes |= pods_a_dim()
            case .normal: break
            }
            return (attributes, 0)
        }
        if style.role == .title || style.role == .playing { attributes |= pods_a_bold() }
        return (attributes, Int32(style.role.rawValue + 1))
    }

    /// One pair per role: foreground and background at the terminal's depth (-1: the terminal's own).
    private static func definePairs(_ depth: ColorDepth) {
        for role in Role.allCases {
            let (foreground, background) = colours(role, depth)
            _ = init_extended_pair(Int32(role.rawValue + 1), foreground, background)
        }
    }

    private static func colours(_ role: Role, _ depth: ColorDepth) -> (Int32, Int32) {
        // (basic, 256-colour palette, 24-bit) for each role's foreground and background.
        typealias Colour = (basic: Int32, palette: Int32, rgb: Int32)
        let none: Colour = (-1, -1, -1)
        let pick: (Colour, Colour) = switch role {
        case .normal: (none, none)
        case .dim: ((COLOR_WHITE, 245, 0x8A8A8A), none)
        case .title: ((COLOR_CYAN, 81, 0x5FD7FF), none)
        case .accent: ((COLOR_YELLOW, 221, 0xFFD75F), none)
        case .selected: ((COLOR_BLACK, 16, 0x000000), (COLOR_CYAN, 117, 0x87D7FF))
        case .selectedElsewhere: ((COLOR_WHITE, 252, 0xD0D0D0), (COLOR_BLUE, 238, 0x444444))
        case .playing: ((COLOR_GREEN, 114, 0x87D787), none)
        case .bar: ((COLOR_WHITE, 255, 0xEEEEEE), (COLOR_BLUE, 236, 0x303030))
        case .barFill: ((COLOR_BLACK, 16, 0x000000), (COLOR_GREEN, 114, 0x87D787))
        case .error: ((COLOR_RED, 203, 0xFF5F5F), none)
        case .border: ((COLOR_BLUE, 240, 0x585858), none)
        case .header: ((COLOR_BLACK, 16, 0x000000), (COLOR_WHITE, 250, 0xBCBCBC))
        }
        func value(_ colour: Colour) -> Int32 {
            switch depth {
            case .none, .basic: colour.basic
            case .palette256: colour.palette
            case .direct: colour.rgb
            }
        }
        return (value(pick.0), value(pick.1))
    }
}

/// Why the terminal could not be used.
public struct TerminalError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
