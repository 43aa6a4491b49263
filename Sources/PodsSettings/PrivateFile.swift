import Foundation
import Glibc

/// Files that may hold a secret (`config.toml` with a Podcast Index secret,
/// the credentials file): written whole, mode 0600 from their first byte (a
/// temporary file made 0600 beside it, synced, then renamed over the old
/// one), so no reader ever sees a part of one or a moment of 0644.
public enum PrivateFile {
    /// Writes `data` to `url`, making its folder if needed. The error says
    /// what failed, for one line of output.
    public static func write(_ data: Data, to url: URL) throws(SettingsError) {
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let partial = url.path + ".partial"
        let fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw SettingsError("cannot write \(url.path): \(String(cString: strerror(errno)))") }
        fchmod(fd, 0o600)  // a .partial left by a crash keeps its old mode through O_TRUNC
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
