import Foundation
import PodsProtocol
import PodsTerminal
import PodsTestSupport
import Testing

/// The real `pods ui` in a real terminal (tmux), against the real podsd on
/// a private bus: keys in with send-keys, the screen back with capture-pane.
@Suite(.timeLimit(.minutes(10))) struct UITests {
    struct Fixture {
        let podsd: PodsdProcess
        let server: LoopbackHTTPServer
        let terminal: TmuxSession

        func stop() async {
            await terminal.stop()
            server.stop()
        }
    }

    /// A podsd with one podcast of three episodes (a CJK and emoji title, a
    /// right-to-left one, a plain one) and `pods ui` open on it.
    static func start(columns: Int = 100, rows: Int = 30, arguments: [String] = []) async throws -> Fixture {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3, "/b.ogg": Fixtures.sampleOgg])
        server.setFile("/feed.xml", sampleFeed([
            ("a", "First 日本語 🎧 wide", 1, server.url("/a.mp3")),
            ("b", "שלום עולם Hebrew", 2, server.url("/b.ogg")),
            ("c", "Third plain", 3, server.url("/a.mp3")),
        ], title: "Wide Show 播客"))
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        let terminal = try await TmuxSession([Fixtures.executable("pods"), "ui"] + arguments,
                                             environment: podsd.bus.environment.merging(["TERM": "xterm-256color"]) { $1 },
                                             columns: columns, rows: rows)
        let fixture = Fixture(podsd: podsd, server: server, terminal: terminal)
        do { try await terminal.waitFor("Third plain") } catch { await fixture.stop(); throw error }
        return fixture
    }

    /// Runs `body` with a UI open, and always closes it (and its tmux server) after.
    static func withUI(arguments: [String] = [], _ body: (Fixture) async throws -> Void) async throws {
        let ui = try await start(arguments: arguments)
        do { try await body(ui) } catch {
            await ui.stop()
            throw error
        }
        await ui.stop()
    }

    @Test func everyLayoutFilterAndHelp() async throws {
        try await Self.withUI { ui in
            let terminal = ui.terminal
            var screen = try await terminal.waitFor("Wide Show 播客 (3)")
            #expect(screen.contains("Podcasts (1)"))
            // Newest first: Third, the Hebrew one, First; the details follow the selection.
            await terminal.send("l")
            try await terminal.waitForScreen("Third's page") { $0.contains("│ Third plain") }
            await terminal.send("j")
            try await terminal.waitForScreen("the Hebrew episode's page") { $0.components(separatedBy: "שלום עולם Hebrew").count > 2 }
            await terminal.send("a")
            try await terminal.waitFor("queued: שלום עולם Hebrew")
            await terminal.send("2")
            screen = try await terminal.waitFor("Queue (1)")
            #expect(screen.contains("שלום עולם Hebrew"))
            await terminal.send("3")
            try await terminal.waitFor("Downloads (")  // episodes podsd cached while reading their chapters count too
            await terminal.send("4")
            try await terminal.waitFor("Every episode, newest first (3)")
            await terminal.send("/")
            await terminal.send("First", literal: true)
            // The list at once; the details follow the new selection a moment later.
            try await terminal.waitForScreen("only First, list and details") {
                $0.contains("Every episode, newest first (1) /First") && !$0.contains("Third plain")
            }
            await terminal.send("Escape")
            try await terminal.waitFor("Every episode, newest first (3)")
            await terminal.send("?")
            try await terminal.waitFor("any other key closes this")
            await terminal.send("x")
            try await terminal.waitForScreen("the help closed") { !$0.contains("any other key closes this") }
            await terminal.send("5")
            try await terminal.waitFor("Search the directories for:")
            await terminal.send("Escape")
            await terminal.send("1")
            try await terminal.waitFor("Podcasts (1)")
        }
    }

    @Test func playAndPauseShowBothWaysWithPlayerctl() async throws {
        try await Self.withUI { ui in
            let terminal = ui.terminal
            await terminal.send("l")
            await terminal.send("Enter")
            try await terminal.waitFor("▶ Wide Show 播客 — Third plain")
            try await waitFor(timeout: .seconds(10)) { await ui.podsd.playerctl("status").stdout.contains("Playing") }
            #expect(await ui.podsd.playerctl("pause").status == 0)
            try await terminal.waitFor("‖ Wide Show 播客 — Third plain", timeout: .seconds(3))
            await terminal.send("Space")
            try await waitFor(timeout: .seconds(5)) { await ui.podsd.playerctl("status").stdout.contains("Playing") }
            try await terminal.waitFor("▶ Wide Show 播客 — Third plain", timeout: .seconds(3))
            // Quitting leaves playback running.
            await terminal.send("q")
            try await waitFor(timeout: .seconds(5)) { await terminal.exited() }
            #expect(await ui.podsd.playerctl("status").stdout.contains("Playing"))
        }
    }

    /// Layout 6 lists the bookmarks, and follows them while open (`BookmarksChanged`);
    /// Enter plays from 5 s before one.
    @Test func theBookmarksLayoutListsThemAndEnterPlaysFromOne() async throws {
        try await Self.withUI { ui in
            let terminal = ui.terminal
            await terminal.send("6")
            try await terminal.waitFor("Bookmarks (0)")
            await terminal.send("1")
            await terminal.send("l")
            await terminal.send("Enter")
            try await terminal.waitFor("▶ Wide Show 播客 — Third plain")
            // Shown playing before the pipeline can seek (under load, a while before): playerctl refuses a position till then.
            try await waitFor(timeout: .seconds(10)) { (try? await ui.podsd.client.property("CanSeek")) == .bool(true) }
            #expect(await ui.podsd.playerctl("pause").status == 0)
            #expect(await ui.podsd.playerctl("position", "40").status == 0)
            try await waitFor(timeout: .seconds(5)) { (try? await ui.podsd.client.status().position).map { abs($0 - 40) < 0.5 } ?? false }
            // The layout stays open: the bookmark another client takes appears by its signal.
            await terminal.send("6")
            try await terminal.waitFor("Bookmarks (0)")
            #expect(await ui.podsd.pods("bookmark", "ui note").status == 0)
            let screen = try await terminal.waitFor("Bookmarks (1)")
            #expect(screen.contains("0:40  Third plain: ui note — Wide Show 播客"), "\(screen)")
            await terminal.send("Enter")
            try await waitFor(timeout: .seconds(10)) { await ui.podsd.playerctl("status").stdout.contains("Playing") }
            let position = try await ui.podsd.client.status().position
            #expect(position >= 34.5 && position < 38, "from 5 s before the bookmark: \(position)")
        }
    }

    @Test func thePlaylistsLayoutSwitchesWhatPlaysNext() async throws {
        try await Self.withUI { ui in
            let terminal = ui.terminal
            #expect(await ui.podsd.pods("playlist", "create", "Plain ones", "--title", "plain").status == 0)
            await terminal.send("7")
            var screen = try await terminal.waitFor("Playlists (2)")
            #expect(screen.contains("Up Next · 0 episodes") && screen.contains("Plain ones · 1 episode"), "\(screen)")
            await terminal.send("j")
            await terminal.send("Enter")
            try await waitFor(timeout: .seconds(10)) { await ui.podsd.playerctl("metadata", "xesam:title").stdout.contains("Third plain") }
            screen = try await terminal.waitForScreen("the playlist marked as playing next") {
                $0.contains("Plain ones · 1 episode — plays next")
            }
            let active = await ui.podsd.run("gdbus", ["call", "--session", "--dest", MPRIS.busName, "--object-path", MPRIS.objectPath.rawValue,
                                                      "--method", "org.freedesktop.DBus.Properties.Get", MPRIS.playlistsInterface,
                                                      "ActivePlaylist"])
            #expect(active.stdout.contains("'Plain ones (1)'"), "\(active)")
            // What was heard of it: layout 8 adds up the listening log (paused, the stretch is kept).
            try await Task.sleep(for: .milliseconds(1200))
            #expect(await ui.podsd.playerctl("pause").status == 0)
            // The stretch is written after the pause, on the library's lane: the layout reads the log as it opens.
            try await waitFor(timeout: .seconds(10)) { await ui.podsd.pods("stats", "--json").stdout.contains("\"sessions\":1") }
            await terminal.send("8")
            screen = try await terminal.waitForScreen("the listening log's sums") { $0.contains("Listening (5)") }
            #expect(screen.contains("saved by speed") && screen.contains("in all, 1 session"), "\(screen)")
        }
    }

    /// Wide (CJK, emoji) and right-to-left titles keep every pane's border
    /// in its column; a resize redraws at the new size; below 60×15 the UI says so.
    @Test func wideTitlesKeepTheColumnsAndAResizeRedraws() async throws {
        try await Self.withUI { ui in
            let terminal = ui.terminal
            @Sendable func borders(_ screen: String) -> Set<[Int]> {
                Set(screen.split(separator: "\n").dropFirst().compactMap { line -> [Int]? in
                    var columns: [Int] = []
                    var at = 0
                    for character in line {
                        if character == "│" { columns.append(at) }
                        at += DisplayText.width(of: character)
                    }
                    return columns.isEmpty ? nil : columns
                })
        }
        await terminal.send("4")
        let wide = try await terminal.waitForScreen("every episode") {
            $0.contains("Every episode, newest first (3)") && $0.contains("First 日本語 🎧 wide")
        }
        #expect(borders(wide) == [[50]], "\(wide)")
        await terminal.send("1")
        let three = try await terminal.waitFor("Podcasts (1)")
        #expect(borders(three) == [[28, 65]], "\(three)")
        await terminal.resize(columns: 60, rows: 15)
        let small = try await terminal.waitForScreen("the 60×15 layout") { borders($0) == [[16, 38]] }
        #expect(small.contains("Wide Show"))
        await terminal.resize(columns: 50, rows: 12)
        try await terminal.waitFor("pods ui needs 60×15")
        await terminal.resize(columns: 100, rows: 30)
        try await terminal.waitForScreen("the layout again") { borders($0) == [[28, 65]] }
        }
    }

    /// What another client does shows without a key: a refresh that finds
    /// an episode, an episode marked played, a position moved.
    @Test func changesFromElsewhereShowAtOnce() async throws {
        try await Self.withUI { ui in
            let terminal = ui.terminal
            ui.server.setFile("/feed.xml", sampleFeed([
                ("a", "First 日本語 🎧 wide", 1, ui.server.url("/a.mp3")),
                ("b", "שלום עולם Hebrew", 2, ui.server.url("/b.ogg")),
                ("c", "Third plain", 3, ui.server.url("/a.mp3")),
                ("d", "Fourth, found by a refresh", 4, ui.server.url("/a.mp3")),
            ], title: "Wide Show 播客"))
            #expect(await ui.podsd.pods("refresh").status == 0)
            try await terminal.waitForScreen("the new episode and the count") {
                $0.contains("Fourth, found by a refresh") && $0.contains("Wide Show 播客 (4)")
            }
            let episodes = try JSONSerialization.jsonObject(with: Data(await ui.podsd.pods("episodes", "--json").stdout.utf8)) as? [[String: Any]]
            let third = try #require(episodes?.first { $0["title"] as? String == "Third plain" }?["id"] as? Int)
            #expect(await ui.podsd.pods("mark", "played", String(third)).status == 0)
            try await terminal.waitFor("✓ Third plain", timeout: .seconds(5))
            #expect(await ui.podsd.pods("play", String(third)).status == 0)
            try await terminal.waitFor("▶ Wide Show 播客 — Third plain", timeout: .seconds(5))
            #expect(await ui.podsd.playerctl("pause").status == 0)
            #expect(await ui.podsd.playerctl("position", "2").status == 0)
            try await terminal.waitForScreen("the position moved by playerctl") { $0.contains("‖ Wide Show 播客") && $0.contains("0:02 /") }
        }
    }

    @Test func aPodsdThatStopsIsShownAndTheUIReconnectsWhenItIsBack() async throws {
        try await Self.withUI { ui in
            let terminal = ui.terminal
            let stopped = await ui.podsd.signal(SIGTERM)
            #expect(stopped?.status == 0, "SIGTERM: \(String(describing: stopped)); \(ui.podsd.errorOutput().suffix(2000))")
            try await terminal.waitFor("podsd is not running")
            let again = try await PodsdProcess.start(bus: ui.podsd.bus, directory: ui.podsd.directory)
            try await terminal.waitForScreen("the UI back") { !$0.contains("podsd is not running") && $0.contains("Wide Show 播客 (3)") }
            #expect(again.isRunning)
            await terminal.send("4")
            try await terminal.waitFor("Every episode, newest first (3)")
        }
    }

    /// The config file's `[keys]` changes the keys (and the help says so);
    /// a `[keys]` table that names no action is one line, before the
    /// terminal is taken.
    @Test func theConfigFilesKeysTableChangesTheKeys() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config.toml")
        try Data("speed = 1\n[keys]\nplay-pause = \"P\"\nquit = \"Q\"\n".utf8).write(to: config)
        try await Self.withUI(arguments: ["--config", config.path]) { ui in
            let terminal = ui.terminal
            await terminal.send("l")
            await terminal.send("Enter")
            try await terminal.waitFor("▶ Wide Show 播客 — Third plain")
            await terminal.send("Space")  // no longer play-pause
            try await Task.sleep(for: .milliseconds(500))
            #expect(await ui.podsd.playerctl("status").stdout.contains("Playing"))
            await terminal.send("P")
            try await terminal.waitFor("‖ Wide Show 播客 — Third plain")
            await terminal.send("?")
            let help = try await terminal.waitFor("any other key closes this")
            #expect(help.contains(" P ") || help.contains(" P  "))
            await terminal.send("Escape")
            await terminal.send("q")
            try await Task.sleep(for: .milliseconds(300))
            #expect(!(await terminal.exited()))
            await terminal.send("Q")
            try await waitFor(timeout: .seconds(5)) { await terminal.exited() }
        }
        try Data("[keys]\nfly = \"x\"\n".utf8).write(to: config)
        let podsd = try await PodsdProcess.start()
        let refused = await Subprocess.run(Fixtures.executable("pods"), ["ui", "--config", config.path], environment: podsd.bus.environment)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("[keys] fly: no such action"), "\(refused.stderr)")
    }

    /// A `pods ui` that dies (of a crash, here a signal of each fatal kind)
    /// gives its terminal back: the main screen, the cursor shown, echo and
    /// line editing on. It died leaving the terminal in curses mode.
    @Test(arguments: [SIGSEGV, SIGABRT, SIGILL])
    func aUIThatCrashesGivesTheTerminalBack(_ signal: Int32) async throws {
        let show = try await ArtworkShow.start(artwork: nil)
        defer { show.server.stop() }
        // Without the Swift runtime's backtracer (which, for a signal sent by kill, returns and lets the
        // process go on), the handler's next is the default: death by the signal.
        let environment = show.podsd.bus.environment.merging(["TERM": "xterm-256color", "SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let terminal = try PseudoTerminal([Fixtures.executable("pods"), "ui", "--no-artwork"], environment: environment)
        try await terminal.waitForOutput("the screen") { String(decoding: $0, as: UTF8.self).contains("\u{1B}[?1049h") }
        // The slave side, held open here, keeps the terminal's settings readable after pods ui is gone.
        let slave = open(terminal.terminalPath, O_RDWR | O_NOCTTY)
        defer { if slave >= 0 { close(slave) } }
        var during = termios()
        #expect(slave >= 0 && tcgetattr(slave, &during) == 0)
        #expect(during.c_lflag & tcflag_t(ECHO) == 0, "curses mode: no echo")
        let before = terminal.output.count
        kill(terminal.pid, signal)
        try await waitFor(timeout: .seconds(10)) { terminal.exited }
        // What it wrote as it died may reach the reading thread after the exit does (a loaded machine).
        let written = try? await terminal.waitForOutput(timeout: .seconds(5), "the terminal given back") { output in
            let after = String(decoding: output.dropFirst(before), as: UTF8.self)
            return after.contains("\u{1B}[?1049l") && after.contains("\u{1B}[?25h")
        }
        let after = String(decoding: (written ?? terminal.output).dropFirst(before), as: UTF8.self)
        #expect(after.contains("\u{1B}[?1049l") && after.contains("\u{1B}[?25h"), "\(after.debugDescription)")
        var now = termios()
        #expect(tcgetattr(slave, &now) == 0)
        #expect(now.c_lflag & tcflag_t(ECHO) != 0 && now.c_lflag & tcflag_t(ICANON) != 0, "echo and line editing back")
    }

    /// In a terminal that shows pictures (here a pseudo-terminal that says
    /// it is kitty's), the details pane shows the episode's artwork in the
    /// kitty graphics protocol, in the room the pane leaves for it; quitting
    /// takes it away; `--no-artwork` sends none.
    @Test func theArtworkShowsWhereTheTerminalShowsPictures() async throws {
        let show = try await ArtworkShow.start(artwork: try await ArtworkShow.jpeg(colour: "red"))
        defer { show.server.stop() }
        let environment = show.podsd.bus.environment.merging(
            ["TERM": "xterm-256color", "KITTY_WINDOW_ID": "7", "TMUX": "", "STY": "", "NO_COLOR": ""]) { $1 }
        let start = Array("\u{1B}_G".utf8), end = Array("\u{1B}\\".utf8)
        /// The kitty sequences written so far: each one's control keys and payload.
        @Sendable func sequences(_ output: [UInt8]) -> [(control: String, payload: [UInt8])] {
            var found: [(String, [UInt8])] = []
            var rest = output[...]
            while let open = rest.firstRange(of: start), let close = rest[open.upperBound...].firstRange(of: end) {
                let body = rest[open.upperBound..<close.lowerBound]
                let split = body.firstIndex(of: UInt8(ascii: ";")) ?? body.endIndex
                found.append((String(decoding: body[..<split], as: UTF8.self), Array(body[split...].dropFirst())))
                rest = rest[close.upperBound...]
            }
            return found
        }
        let terminal = try PseudoTerminal([Fixtures.executable("pods"), "ui"], environment: environment, columns: 100, rows: 30)
        terminal.send("l")  // the episodes, and the first one's page
        let output = try await terminal.waitForOutput("the whole picture") { output in
            sequences(output).contains { $0.control.contains("a=T") } && sequences(output).last?.control.hasSuffix("m=0") == true
        }
        let all = sequences(output)
        let first = try #require(all.firstIndex { $0.control.contains("a=T") })
        // 100×30, layout 1: a 24×12-cell picture at the details pane's first text row, the cursor left where it was.
        #expect(all[first].control.hasPrefix("a=T,f=100,t=d,i=1,q=2,C=1,c=24,r=12,m="), "\(all[first].control)")
        let payload = all[first...].flatMap(\.payload)
        let png = try #require(Data(base64Encoded: Data(payload)).map { [UInt8]($0) })
        #expect(ArtworkShow.size(ofPNG: png)! == (256, 256))
        let middle = try await ArtworkShow.pixel(ofPNG: png, x: 128, y: 128)
        #expect(middle[0] > 200 && middle[1] < 40 && middle[2] < 40, "\(middle)")
        #expect(String(decoding: output, as: UTF8.self).contains("Seen episode"))
        terminal.send("q")
        try await waitFor(timeout: .seconds(5)) { terminal.exited }
        #expect(sequences(terminal.output).last?.control == "a=d,d=I,i=1,q=2")

        // Told not to: nothing of the protocol, whatever the terminal says it is.
        let plain = try PseudoTerminal([Fixtures.executable("pods"), "ui", "--no-artwork"], environment: environment)
        plain.send("l")
        try await plain.waitForOutput("the page") { String(decoding: $0, as: UTF8.self).contains("Notes.") }
        try await Task.sleep(for: .milliseconds(500))
        #expect(sequences(plain.output).isEmpty)
        await plain.stop()
    }

    /// The page's links open with the desktop's browser (`xdg-open`, here a
    /// stand-in on PATH that notes what it was given): Enter on a link's
    /// line, or `o` and the link's number.
    @Test func aLinkOpensByEnterOnItsLineOrByItsNumber() async throws {
        let show = try await ArtworkShow.start(artwork: nil, description: """
            <p>Show notes with <a href="https://example.com/one">the first link</a> and <a href="https://example.com/two">a second</a>.</p>
            """)
        defer { show.server.stop() }
        let tools = try Fixtures.temporaryDirectory()
        let opened = tools.appendingPathComponent("opened")
        let fake = tools.appendingPathComponent("xdg-open")
        try Data("#!/bin/sh\necho \"$@\" >> '\(opened.path)'\n".utf8).write(to: fake)
        chmod(fake.path, 0o755)
        let path = tools.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let terminal = try await TmuxSession([Fixtures.executable("pods"), "ui", "--no-artwork"],
                                             environment: show.podsd.bus.environment.merging(["TERM": "xterm-256color", "PATH": path]) { $1 })
        defer { Task { await terminal.stop() } }
        @Sendable func openedLinks() -> [String] {
            (try? String(contentsOf: opened, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        }
        await terminal.send("l")
        try await terminal.waitFor("[2] a second")
        await terminal.send("o")
        try await terminal.waitFor("Open link number:")
        await terminal.send("2", literal: true)
        await terminal.send("Enter")
        try await waitFor(timeout: .seconds(5)) { openedLinks() == ["https://example.com/two"] }
        try await terminal.waitFor("opening https://example.com/two")
        await terminal.send("o")
        await terminal.send("9", literal: true)
        await terminal.send("Enter")
        try await terminal.waitFor("! no link 9 on this page")
        // In the details (a link's address wraps to a line of its own): the last two lines are link 2's, the two above link 1's.
        await terminal.send("l")
        await terminal.send("G")
        await terminal.send("k")
        await terminal.send("k")
        await terminal.send("Enter")
        try await waitFor(timeout: .seconds(5)) { openedLinks() == ["https://example.com/two", "https://example.com/one"] }
    }

    /// Layout 5: a search of the directory (a stand-in of iTunes' API on
    /// loopback), then one key subscribes to the result; the podcast list
    /// has it at once.
    @Test func searchingTheDirectoryAndSubscribingWithOneKey() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/found.xml", sampleFeed([("f1", "Found one", 1, server.url("/a.mp3"))], title: "Found Show"))
        ITunesStandIn.serve(on: server, term: "found", show: "Found Show", artist: "Finder", feedURL: server.url("/found.xml"))
        let podsd = try await PodsdProcess.start(directory: try ITunesStandIn.dataDirectory(searching: server))
        let terminal = try await TmuxSession([Fixtures.executable("pods"), "ui"],
                                             environment: podsd.bus.environment.merging(["TERM": "xterm-256color"]) { $1 })
        defer { Task { await terminal.stop() } }
        try await terminal.waitFor("Podcasts (0)")
        await terminal.send("5")
        try await terminal.waitFor("Search the directories for:")
        await terminal.send("found", literal: true)
        await terminal.send("Enter")
        try await terminal.waitFor("Found Show — Finder")
        await terminal.send("Enter")
        try await terminal.waitFor("subscribed to Found Show")
        await terminal.send("1")
        try await terminal.waitForScreen("the new podcast") { $0.contains("Podcasts (1)") && $0.contains("Found Show") }
        #expect(await podsd.pods("podcasts").stdout.contains("Found Show"))
    }
}

