import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Tells when `config.toml` changes on disk (an editor saving it, `pods
/// config`, a file copied over it): inotify on its directory, read by a
/// thread of its own that sleeps in `poll` until something happens there.
public final class ConfigWatcher: Sendable {
    private let url: URL
    private let onChange: @Sendable () -> Void
    /// The inotify descriptor and the pipe that wakes the thread to stop.
    private let descriptors: Mutex<(inotify: Int32, wake: (read: Int32, write: Int32))?> = Mutex(nil)

    /// Changes that come this close together are one (an editor's write, then its rename).
    static let settleTime: Duration = .milliseconds(150)

    public init(url: URL, onChange: @escaping @Sendable () -> Void) {
        self.url = url
        self.onChange = onChange
    }

    /// Starts watching; a directory that cannot be watched is an error (the
    /// file is then read at start only).
    public func start() throws(SettingsError) {
        let directory = url.deletingLastPathComponent().path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0 else { throw SettingsError("cannot watch \(directory): \(String(cString: strerror(errno)))") }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM)
        guard inotify_add_watch(inotify, directory, mask) >= 0 else {
            close(inotify)
            throw SettingsError("cannot watch \(directory): \(String(cString: strerror(errno)))")
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(inotify)
            throw SettingsError("cannot watch \(directory): no pipe")
        }
        let (wakeRead, wakeWrite) = (pipeEnds[0], pipeEnds[1])
        descriptors.withLock { $0 = (inotify, (wakeRead, wakeWrite)) }
        let thread = Thread { [self] in run(inotify: inotify, wake: wakeRead) }
        thread.name = "pods.config"
        thread.start()
    }

    /// Stops the thread and closes what it watched with.
    public func stop() {
        guard let open = descriptors.withLock({ open in defer { open = nil }; return open }) else { return }
        var byte: UInt8 = 1
        _ = write(open.wake.write, &byte, 1)
        close(open.wake.write)
    }

    private func run(inotify: Int32, wake: Int32) {
        let name = url.lastPathComponent
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        var pendingSince: ContinuousClock.Instant?
        while true {
            // Wait for events; while a change settles, only as long as that takes.
            let timeout: Int32 = pendingSince.map { since in
                Int32(max(0, (Self.settleTime - (ContinuousClock.now - since)) / .milliseconds(1)))
            } ?? -1
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, timeout)
            if ready < 0 && errno == EINTR { continue }
            if fds[1].revents != 0 { break }
            if fds[0].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                if count > 0, Self.names(in: buffer.prefix(count)).contains(name) { pendingSince = pendingSince ?? .now }
            }
            if let since = pendingSince, ContinuousClock.now - since >= Self.settleTime {
                pendingSince = nil
                onChange()
            }
        }
        close(inotify)
        close(wake)
    }

    /// The file names of a buffer of `inotify_event`s.
    static func names(in bytes: ArraySlice<UInt8>) -> [String] {
        var names: [String] = []
        var offset = bytes.startIndex
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= bytes.endIndex {
            let length = Int(bytes[offset..<offset + header].withUnsafeBytes {
                $0.loadUnaligned(fromByteOffset: MemoryLayout<inotify_event>.offset(of: \.len) ?? 12, as: UInt32.self)
            })
            let nameBytes = bytes[(offset + header)..<min(bytes.endIndex, offset + header + length)].prefix { $0 != 0 }
            names.append(String(decoding: nameBytes, as: UTF8.self))
            offset += header + length
        }
        return names
    }
}
