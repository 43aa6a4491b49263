import Foundation
import Glibc
import PodsConcurrency
import Synchronization

/// A program on a pseudo-terminal of its own, every byte it writes kept:
/// for what a terminal multiplexer would swallow (a picture's escape
/// sequences), where `TmuxSession` shows only the screen.
public final class PseudoTerminal: Sendable {
    private let master: Int32
    /// The terminal's own side, as the program has it (`/dev/pts/N`).
    public let terminalPath: String
    public let pid: pid_t
    private let state = State()

    /// What the reading and waiting threads fill in.
    private final class State: Sendable {
        let written = Mutex<[UInt8]>([])
        let ended = Mutex<Int32?>(nil)
    }

    /// Starts `arguments` on a new `columns`×`rows` terminal with `environment` added to this process's.
    public init(_ arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 30) throws {
        // posix_openpt, unlockpt and ptsname, as Linux spells them (Swift's Glibc leaves those out).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0, number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431 /* TIOCSPTLCK */, &unlock) == 0,
              ioctl(master, 0x8004_5430 /* TIOCGPTN */, &number) == 0 else {
            throw TestSupportError("no pseudo-terminal (errno \(errno))")
        }
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        // In a session of its own, the terminal opened first becomes the program's controlling terminal.
        guard let pid = ChildProcess.spawn(arguments, ownSession: true, terminal: "/dev/pts/\(number)", environment: environment) else {
            close(master)
            throw TestSupportError("\(arguments.first ?? "") could not start")
        }
        self.master = master
        self.terminalPath = "/dev/pts/\(number)"
        self.pid = pid
        let state = state
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(master, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }  // EIO once the program and its terminal are gone
                state.written.withLock { $0 += buffer.prefix(count) }
            }
        }.start()
        let child = pid
        Thread {
            let status = ChildProcess.wait(child)
            state.ended.withLock { $0 = status }
        }.start()
    }

    deinit {
        if !exited { kill(pid, SIGKILL) }
        close(master)
    }

    /// Every byte the program wrote so far.
    public var output: [UInt8] { state.written.withLock { $0 } }

    /// Whether the program has ended.
    public var exited: Bool { state.ended.withLock { $0 } != nil }

    /// Types `text` (a key's bytes: "\u{1B}" is Escape, "\r" Enter).
    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Waits until the output satisfies `condition`; throws with its end after `timeout`.
    @discardableResult
    public func waitForOutput(timeout: Duration = .seconds(15), _ what: String,
                              _ condition: @Sendable ([UInt8]) -> Bool) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let now = output
            if condition(now) { return now }
            try await Task.sleep(for: .milliseconds(50))
        }
        let tail = String(decoding: output.suffix(600), as: UTF8.self).replacingOccurrences(of: "\u{1B}", with: "␛")
        throw TestSupportError("\(what) did not come within \(timeout); the output ended:\n\(tail)")
    }

    /// Ends the program (SIGTERM, then SIGKILL) and waits for it.
    public func stop() async {
        guard !exited else { return }
        kill(pid, SIGTERM)
        for _ in 0..<40 where !exited { try? await Task.sleep(for: .milliseconds(50)) }
        if !exited { kill(pid, SIGKILL) }
        for _ in 0..<40 where !exited { try? await Task.sleep(for: .milliseconds(50)) }
    }
}
