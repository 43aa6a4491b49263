import Foundation

/// Names the episode being loaded (its audio opened and prerolled, then its
/// chapters read) in a small file beside the library while it lasts. A
/// marker still there when podsd starts names the episode podsd died
/// loading: a file that crashes GStreamer or a tag reader would otherwise
/// crash podsd again at every start, as it resumes that episode.
///
/// A death while loading may also be a `kill -9` that had nothing to do
/// with the file, so the resume is tried once more (`attempts` 2) before
/// the episode is left alone. A clean stop (SIGTERM at a logout, Quit)
/// removes the marker: it is no death.
///
/// The file is written without `fsync`: a crash leaves what the process
/// wrote in the kernel's page cache, and only a crash is guarded against.
struct LoadMarker: Sendable {
    let file: URL
    /// Loads of one episode that may die before it is left alone at start.
    static let attemptsAllowed = 2

    init(directory: URL) { file = directory.appendingPathComponent("loading-episode") }

    /// A load of `episodeID` begins: its own first attempt, unless the
    /// marker already counts this episode's (a resume after a death).
    func begin(_ episodeID: Int64) {
        guard leftOver()?.episodeID != episodeID else { return }
        write(episodeID, attempts: 1)
    }

    func write(_ episodeID: Int64, attempts: Int) { try? Data("\(episodeID) \(attempts)\n".utf8).write(to: file) }

    func end() { try? FileManager.default.removeItem(at: file) }

    /// The episode a previous run died loading, and how many loads of it died.
    func leftOver() -> (episodeID: Int64, attempts: Int)? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard let id = fields.first.flatMap({ Int64($0) }) else { return nil }
        return (id, fields.dropFirst().first.flatMap { Int($0) } ?? 1)
    }
}
