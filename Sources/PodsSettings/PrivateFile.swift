import Foundation
import Glibc
import Synchronization

/// Files that may hold a secret (`config.toml` with a Podcast Index secret,
/// the credentials file): written whole, mode 0600 from their first byte (a
/// temporary file of its own, made 0600 beside it by `mkstemp`, synced,
/// then renamed over the old one), so no reader ever sees a part of one or
/// a moment of 0644. Updates are serialised in the process: a read, its
/// change and the write are one step, so two writers never lose each
/// other's change.
public enum PrivateFile {
    /// One update at a time, across every private file (they are small and rarely written).
    private static let updating = Mutex(())

    /// Writes `data` to `url`, making its folder if needed. The error says
    /// what failed, for one line of output.
    public static func write(_ data: Data, to url: URL) throws(SettingsError) {
        try updating.withLock { _ throws(SettingsError) in try writeUnlocked(data, to: url) }
    }

    /// Reads `url` (nil when there is no such file), hands it to `change`,
    /// and writes what `change` returns, all under one lock. A file that is
    /// there but cannot be read is never overwritten: the update fails.
    public static func update(_ url: URL, _ change: (Data?) throws(SettingsError) -> Data) throws(SettingsError) {
        try updating.withLock { _ throws(SettingsError) in
            let current: Data?
            if FileManager.default.fileExists(atPath: url.path) {
                guard let data = FileManager.default.contents(atPath: url.path) else {
                    throw SettingsError("cannot read \(url.path), so it is left as it is: \(String(cString: strerror(errno)))")
                }
                current = data
            } else {
                current = nil
            }
            try writeUnlocked(try change(current), to: url)
        }
    }

    /// Moves an unreadable `url` aside (to `NAME.unreadable-DATE`), so that
    /// the next write makes a new one and the old stays for its owner.
    /// Returns where it went.
    public static func setAside(_ url: URL) -> URL? {
        updating.withLock { _ in
            let stamp = Int(Date().timeIntervalSince1970)
            let aside = url.deletingLastPathComponent().appendingPathComponent("\(url.lastPathComponent).unreadable-\(stamp)")
            return rename(url.path, aside.path) == 0 ? aside : nil
        }
    }

    private static func writeUnlocked(_ data: Data, to url: URL) throws(SettingsError) {
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var template = Array((url.path + ".partial-XXXXXX").utf8CString)
        let fd = mkstemp(&template)  // 0600, a name of its own
        guard fd >= 0 else { throw SettingsError("cannot write \(url.path): \(String(cString: strerror(errno)))") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // mkostemp is not in Swift's Glibc
        let partial = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == data.count, synced, rename(partial, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw SettingsError("cannot write \(url.path): \(reason)")
        }
    }
}
