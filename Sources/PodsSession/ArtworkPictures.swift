import Foundation
import PodsCache
import PodsConcurrency
import PodsFeedParser
import PodsLibrary
import PodsPlayback

/// An episode's artwork as a square PNG of a given size, for terminals that
/// show pictures (`pods ui`): the episode's own image, else its podcast's,
/// fetched once into the artwork cache and rendered once per size.
///
/// The picture is decoded by a helper process (`ImageRenderer`): a hostile
/// image can take that process down, never podsd.
package struct ArtworkPictures: Sendable {
    private let library: Library
    private let cache: ArtworkCache
    /// The helper's command line before its three arguments.
    private let helper: [String]
    /// How long the helper may take before it is killed.
    private let timeLimit: Duration

    /// `helper`: the executable that renders (by default this one: podsd).
    package init(library: Library, cache: ArtworkCache, helper: [String] = ["/proc/self/exe", ImageRenderer.helperArgument],
                 timeLimit: Duration = .seconds(20)) {
        self.library = library
        self.cache = cache
        self.helper = helper
        self.timeLimit = timeLimit
    }

    /// The sizes pictures are rendered at: a request gets the first at
    /// least as large as it asks, so each artwork is kept in five files at most.
    package static let sizes = [64, 128, 256, 512, 1024]

    /// The rendered PNG's file: `pixels` (16 to 1024) rounded up to one of `sizes`.
    package func picture(episode id: Int64, pixels asked: Int) async throws(SessionError) -> URL {
        guard asked >= 16, let pixels = Self.sizes.first(where: { $0 >= asked }) else {
            throw .invalidArgument("a picture is 16 to \(Self.sizes.last ?? 0) pixels wide")
        }
        let episode = try await LibraryWork.run { () throws(LibraryError) in try library.episode(id) }
        guard let remote = episode.episode.artworkURL ?? episode.podcastArtworkURL else {
            throw .notFound("episode \(id) has no artwork")
        }
        guard let local = await cache.localURI(for: remote, policy: episode.urlPolicy), let source = URL(string: local), source.isFileURL else {
            throw .failed("the artwork could not be fetched")
        }
        let rendered = cache.directory.appendingPathComponent("rendered-\(pixels)-" + ArtworkCache.fileName(for: source.path) + ".png")
        if !Self.isNewer(rendered, than: source) { try await render(source.path, to: rendered, pixels: pixels) }
        return rendered
    }

    private func render(_ input: String, to output: URL, pixels: Int) async throws(SessionError) {
        let part = output.path + ".part-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: part) }
        guard let pid = ChildProcess.spawn(helper + [input, part, String(pixels)]) else {
            throw .failed("the artwork could not be rendered (no helper)")
        }
        let status = await ChildProcess.exit(of: pid, killAfter: timeLimit)
        // Exited with 0 (a signal, a limit or a failed read is anything else).
        // rename(2) replaces an older rendering (FileManager.moveItem refuses an existing file,
        // which kept the first picture for good once the artwork changed).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0, rename(part, output.path) == 0 else {
            throw .failed("the artwork could not be read as a picture")
        }
    }

    /// Whether `file` exists and was written after `source`.
    private static func isNewer(_ file: URL, than source: URL) -> Bool {
        let manager = FileManager.default
        guard let made = (try? manager.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date else { return false }
        let changed = (try? manager.attributesOfItem(atPath: source.path))?[.modificationDate] as? Date ?? .distantFuture
        return made >= changed
    }
}
