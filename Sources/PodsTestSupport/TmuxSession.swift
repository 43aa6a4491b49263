import Foundation
import PodsConcurrency

/// A real terminal for a full-screen program: a tmux server of its own
/// (its own socket, so tests never meet each other's or the user's), one
/// window of a given size running `command`; keys go in with `send-keys`
/// and the screen comes back as text with `capture-pane`.
public final class TmuxSession: Sendable {
    public let socket: String
    public let name = "ui"

    /// Starts `arguments` (the program and its arguments) in a `columns`×`rows` window with `environment` added.
    public init(_ arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 30) async throws {
        socket = "pods-test-\(UUID().uuidString.prefix(8))"
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let command = (["env"] + assignments + arguments).map(Self.quoted).joined(separator: " ")
        // The server tmux forks keeps the client's standard files (pipes would never reach their
        // end) and outlives it: started without Foundation's pipes and waited for on a thread of its own.
        let start = ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", name,
                     "-x", String(columns), "-y", String(rows), command]
        guard let pid = ChildProcess.spawn(start) else { throw TestSupportError("tmux could not start") }
        let status = await ChildProcess.exit(of: pid)
        guard status == 0 else { throw TestSupportError("tmux could not start (wait status \(status))") }
        // The window keeps the size asked for, whatever attaches.
        _ = await tmux("set-option", "-g", "window-size", "manual")
        _ = await tmux("set-option", "-g", "remain-on-exit", "on")
    }

    /// The screen now, one line per row (trailing spaces dropped).
    public func screen() async -> String {
        await tmux("capture-pane", "-p", "-t", name).stdout
    }

    /// Sends keys by tmux's names (`Enter`, `Up`, `C-c`) or as text with `literal`.
    public func send(_ keys: String..., literal: Bool = false) async {
        _ = await tmux(["send-keys", "-t", name] + (literal ? ["-l"] : []) + keys)
    }

    /// Resizes the window (the program gets SIGWINCH).
    public func resize(columns: Int, rows: Int) async {
        _ = await tmux("resize-window", "-t", name, "-x", String(columns), "-y", String(rows))
    }

    /// Whether the program in the window has exited.
    public func exited() async -> Bool {
        await tmux("display-message", "-p", "-t", name, "#{pane_dead}").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
    }

    /// Waits until the screen satisfies `condition`; throws with the last screen after `timeout`.
    @discardableResult
    public func waitForScreen(timeout: Duration = .seconds(15), _ what: String = "the screen", every interval: Duration = .milliseconds(50),
                              _ condition: @Sendable (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while ContinuousClock.now < deadline {
            last = await screen()
            if condition(last) { return last }
            try await Task.sleep(for: interval)
        }
        throw TestSupportError("\(what) did not appear within \(timeout); the screen:\n\(last)")
    }

    /// Waits until the screen shows `text`.
    @discardableResult
    public func waitFor(_ text: String, timeout: Duration = .seconds(15)) async throws -> String {
        try await waitForScreen(timeout: timeout, "'\(text)'") { $0.contains(text) }
    }

    /// Ends the server and whatever still runs in it.
    public func stop() async {
        _ = await tmux("kill-server")
    }

    private func tmux(_ arguments: String...) async -> CommandResult { await tmux(arguments) }

    private func tmux(_ arguments: [String]) async -> CommandResult {
        await Subprocess.run("tmux", ["-L", socket] + arguments, timeout: .seconds(10))
    }

    private static func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
