import Foundation

/// What a helper process (`ImageRenderer`, `LoudnessAnalyzer`) does before
/// it reads a byte from outside: nothing podsd had open is left to it (a
/// descriptor inherited without close-on-exec: a spilled download, a
/// socket), and its memory and CPU time are capped; a small file may
/// declare a huge one. The parent keeps time as well.
enum HelperLimits {
    static func apply(memoryBytes: rlim_t, cpuSeconds: rlim_t) {
        let openMaximum = min(max(sysconf(Int32(_SC_OPEN_MAX)), 256), 65_536)
        for descriptor in 3..<Int32(openMaximum) { close(descriptor) }
        var memory = rlimit(rlim_cur: memoryBytes, rlim_max: memoryBytes)
        setrlimit(Int32(RLIMIT_DATA.rawValue), &memory)
        var cpu = rlimit(rlim_cur: cpuSeconds, rlim_max: cpuSeconds)
        setrlimit(Int32(RLIMIT_CPU.rawValue), &cpu)
    }
}
