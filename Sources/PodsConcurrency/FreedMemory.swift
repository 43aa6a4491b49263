/// Memory the process freed but malloc kept.
public enum FreedMemory {
    /// Hands it back to the system. A refresh of a large library parses
    /// hundreds of megabytes on several threads; glibc keeps what they freed
    /// in per-thread arenas, so a daemon that refreshed once would otherwise
    /// stay twice its idle size until it exits.
    public static func giveBack() { _ = mallocTrim(0) }
}

/// glibc's `malloc_trim` (malloc.h is not in Swift's Glibc module).
@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32
