import Foundation
import PodsConcurrency
import Synchronization

/// Names the episode being loaded (its audio opened and prerolled, its tags
/// read) in a small file beside the library while it lasts, and marks in it
/// a **crash** during the load: a file that crashes GStreamer or a tag
/// reader would otherwise crash podsd again at every start, as it resumes
/// that episode.
///
/// Only a crash counts: a handler for the fatal signals (SIGSEGV, SIGBUS,
/// SIGILL, SIGABRT, SIGFPE) appends one line to the marker through a
/// descriptor opened at the load's start (`write(2)` is async-signal-safe),
/// then hands the signal on to the handler it replaced (the runtime's
/// backtrace). A SIGKILL from a logout or the OOM killer, a power cut or a
/// clean stop leaves a marker without that line, which counts for nothing.
/// A crash is tried once more (`attemptsAllowed` 2) before the episode is
/// left alone at start.
///
/// Reading an episode's embedded chapters is guarded on its own, by a marker
/// of its own (`reading-chapters`, `slot` 1; `ChapterLoader`): a crash there
/// costs the file its tags, a kill nothing (REVIEW-4, N10: the attempt was
/// stored before the read, so a logout during it lost them for good). The
/// load's marker ends once the audio has prerolled.
///
/// The file is written without `fsync`: a crash leaves what the process
/// wrote in the kernel's page cache, and only a crash is guarded against.
struct LoadMarker: Sendable {
    let file: URL
    /// Which of the crash handler's descriptors this marker's is.
    private let slot: Int
    /// Loads of one episode that may crash before it is left alone at start.
    static let attemptsAllowed = 2
    /// The line a crash appends.
    static let crashLine = "crashed"

    init(directory: URL) { self.init(directory: directory, name: "loading-episode", slot: 0) }

    /// The marker of a chapter read (the tags of one file at a time).
    static func chapterReads(in directory: URL) -> LoadMarker { LoadMarker(directory: directory, name: "reading-chapters", slot: 1) }

    private init(directory: URL, name: String, slot: Int) {
        file = directory.appendingPathComponent(name)
        self.slot = slot
        CrashMark.install()
    }

    /// A load of `episodeID` begins, its `attempts`th since a crash (1 for a
    /// load no crash came before).
    func begin(_ episodeID: Int64, attempts: Int = 1) { begin("\(episodeID) \(attempts)\n") }

    /// A read of `url`'s tags for `episodeID` begins (the chapter-read marker's second line names the file).
    func begin(_ episodeID: Int64, url: String) {
        begin("\(episodeID) 1\n\(url.split(whereSeparator: \.isNewline).joined())\n")
    }

    private func begin(_ marker: String) {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return }
        let text = Array(marker.utf8)
        guard text.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == text.count else {
            close(descriptor)
            return
        }
        CrashMark.arm(descriptor, slot: slot)
    }

    /// The load ended (prerolled, failed, or podsd stops cleanly): no marker.
    func end() {
        CrashMark.disarm(slot: slot)
        unlink(file.path)
    }

    /// The episode a previous run crashed loading, and how many of its loads
    /// crashed; nil when none did. A marker without a crash (a kill, a stop)
    /// is removed.
    func crashedLoad() -> (episodeID: Int64, attempts: Int)? {
        crashed().map { ($0.episodeID, $0.attempts) }
    }

    /// The chapter read a previous run crashed in: the episode and the file's URL; nil when none did.
    func crashedRead() -> (episodeID: Int64, url: String)? {
        crashed().flatMap { crash in crash.detail.map { (crash.episodeID, $0) } }
    }

    /// The marker's first line and the one after it, when a crash marked it; a marker without a
    /// crash is removed.
    private func crashed() -> (episodeID: Int64, attempts: Int, detail: String?)? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n")
        let fields = lines.first?.split(separator: " ") ?? []
        guard lines.dropFirst().contains(where: { $0 == Self.crashLine }),
              let id = fields.first.flatMap({ Int64($0) }) else {
            unlink(file.path)
            return nil
        }
        let detail = lines.dropFirst().first.flatMap { $0 == Self.crashLine ? nil : String($0) }
        return (id, fields.dropFirst().first.flatMap { Int($0) } ?? 1, detail)
    }
}

/// The crash handler's state: the marker's descriptor while a load lasts
/// (-1 otherwise). Read from a signal handler, so only an atomic load.
private enum CrashMark {
    static let installed = Mutex(false)

    static func install() {
        installed.withLock { done in
            guard !done else { return }
            done = true
            _ = loadDescriptor.load(ordering: .relaxed)  // made before any signal can read them
            _ = chapterDescriptor.load(ordering: .relaxed)
            chain.install { signal in CrashMark.crashed(signal) }
        }
    }

    static func arm(_ descriptor: Int32, slot: Int) {
        let old = slot == 0 ? loadDescriptor.exchange(descriptor, ordering: .sequentiallyConsistent)
            : chapterDescriptor.exchange(descriptor, ordering: .sequentiallyConsistent)
        if old >= 0 { close(old) }
    }

    static func disarm(slot: Int) {
        let old = slot == 0 ? loadDescriptor.exchange(-1, ordering: .sequentiallyConsistent)
            : chapterDescriptor.exchange(-1, ordering: .sequentiallyConsistent)
        if old >= 0 { close(old) }
    }

    /// In the signal handler: the line in each marker armed, then the signal handed on.
    static func crashed(_ signal: Int32) {
        let line: StaticString = "crashed\n"  // no array, nothing allocated: a signal handler
        let load = loadDescriptor.load(ordering: .relaxed), chapters = chapterDescriptor.load(ordering: .relaxed)
        if load >= 0 { _ = write(load, line.utf8Start, line.utf8CodeUnitCount) }
        if chapters >= 0 { _ = write(chapters, line.utf8Start, line.utf8CodeUnitCount) }
        chain.passOn(signal)
    }
}

private let loadDescriptor = Atomic<Int32>(-1)
private let chapterDescriptor = Atomic<Int32>(-1)
/// Made (by `install`'s first use) before the handler that reads it is in place.
private let chain = FatalSignalChain()
