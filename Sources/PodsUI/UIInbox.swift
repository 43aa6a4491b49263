import Foundation
import Synchronization

/// Events from the bus's tasks, waiting for the UI's thread, which a
/// post wakes through a pipe.
final class UIInbox: Sendable {
    private let events = Mutex<[UIEvent]>([])
    /// The pipe's ends: the UI's thread waits on `wakeFD` with the terminal.
    let wakeFD: Int32
    /// The write end: a post, or a resize (`Terminal.wakeOnResize`), writes a byte.
    let signalFD: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        (wakeFD, signalFD) = (ends[0], ends[1])
    }

    deinit {
        close(wakeFD)
        close(signalFD)
    }

    func post(_ event: UIEvent) {
        events.withLock { $0.append(event) }
        var one: UInt8 = 1
        _ = write(signalFD, &one, 1)  // a full pipe already means "wake up"
    }

    func take() -> [UIEvent] {
        events.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }
}
