import Foundation

/// A process's memory figures from `/proc/PID/status`.
public enum ProcessMemory {
    /// A field such as `VmRSS` (resident now) or `VmHWM` (peak resident), in KiB.
    public static func kibibytes(_ field: String, of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
        return line?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// `VmHWM` in MiB (0 when the process is gone).
    public static func peakMiB(of pid: Int32) -> Double { Double(kibibytes("VmHWM", of: pid) ?? 0) / 1024 }

    /// `VmRSS` in MiB (0 when the process is gone).
    public static func residentMiB(of pid: Int32) -> Double { Double(kibibytes("VmRSS", of: pid) ?? 0) / 1024 }
}
