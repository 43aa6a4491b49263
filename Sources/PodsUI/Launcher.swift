import Foundation
import PodsConcurrency

/// Starts a desktop program (`xdg-open`) that outlives the UI, in a session
/// of its own, and reaps it on a thread of its own so it never lingers as
/// a zombie.
enum Launcher {
    /// Whether the program started.
    static func detached(_ arguments: [String]) -> Bool {
        guard let pid = ChildProcess.spawn(arguments, ownSession: true) else { return false }
        Thread { _ = ChildProcess.wait(pid) }.start()
        return true
    }
}
