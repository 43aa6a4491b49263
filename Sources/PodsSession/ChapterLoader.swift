import Foundation
import Logging
import PodsCache
import PodsChapters
import PodsConcurrency
import PodsFeedParser
import PodsHTTP
import PodsLibrary
import PodsPlayback

/// Gathers an episode's chapters from every source and merges them
/// (`ChapterMerge`): the feed's Podlove chapters, its `podcast:chapters`
/// file (fetched once, kept in the library, fetched again when its URL
/// changes), and the media file's own (read once through the range cache,
/// so a streamed episode downloads only its tag's bytes); when none of
/// them has any, the times its show notes list (`ShowNoteChapters`).
///
/// A broken or missing chapters file is logged and kept as an error for a
/// day, so it is not fetched at every play; the episode's other chapters
/// still count.
package struct ChapterLoader: Sendable {
    package let library: Library
    package let artwork: ArtworkCache?
    package let logger: Logger
    private let http: HTTPClient

    /// Reading a media file's tags (which may wait for the network) runs
    /// here, never on the cooperative pool.
    package static let lane = BlockingLane("pods.chapters", width: 1)
    /// How long a chapters file that failed is left before it is tried again.
    package static let retryFailedAfter: TimeInterval = 24 * 3600
    /// How long reading a streamed file's tags may wait for its bytes.
    package static let mediaDeadline: Duration = .seconds(30)

    /// The tags being read, marked by the crash handler if a reader crashes.
    private let reading: LoadMarker

    package init(library: Library, artwork: ArtworkCache?, logger: Logger) {
        self.library = library
        self.artwork = artwork
        self.logger = logger
        self.http = HTTPClient(maximumBytes: 4 << 20, deadline: .seconds(30))
        reading = LoadMarker.chapterReads(in: library.directory)
        // A reader that crashed the last run costs its file its tags (read no more); a kill or a stop
        // during a read costs nothing.
        if let (id, url) = reading.crashedRead() {
            try? library.saveChapterList(id, .media, StoredChapterList(url: url, chapters: [], error: Self.diedReading))
            logger.error("podsd crashed reading the chapters in \(url) (episode \(id)); they are not read again")
        }
        reading.end()
    }

    /// The episode's merged chapters (silent ones included); `url` is the
    /// audio it plays (`PreferenceStore.audioURL`), `media` the range cache
    /// it plays from, if any.
    package func chapters(for episode: LibraryEpisode, url: String?, media: (any RandomAccessMedia)?) async -> [EpisodeChapter] {
        let feed = episode.episode.chapters.map {
            EpisodeChapter(start: $0.start, title: $0.title, url: $0.url, image: $0.image, source: .psc)
        }
        async let json = jsonChapters(episode)
        async let embedded = mediaChapters(episode, url: url, media: media)
        let merged = ChapterMerge.merge([await json, feed, await embedded], duration: episode.episode.duration)
        guard merged.isEmpty else { return merged }
        // None anywhere: the times the show notes list, if they list some.
        let notes = episode.episode.descriptionHTML.map(HTMLDocument.paragraphs) ?? [episode.episode.description]
        return ShowNoteChapters.chapters(in: notes, duration: episode.episode.duration)
    }

    // MARK: - podcast:chapters

    private func jsonChapters(_ episode: LibraryEpisode) async -> [EpisodeChapter] {
        guard let url = episode.episode.chaptersURL else { return [] }
        let id = episode.id
        let library = library
        let stored = try? await Self.lane.run { () throws(LibraryError) in try library.chapterList(id, .json, url: url) }
        if let stored, stored.error == nil || Date().timeIntervalSince(stored.fetchedAt) < Self.retryFailedAfter {
            return stored.chapters
        }
        let list: StoredChapterList
        do {
            guard HTTPClient.isHTTP(url) else { throw ChapterError("it is not an http(s) URL") }
            let response = try await http.get(url)
            guard (200..<300).contains(response.status) else { throw ChapterError("the server answered \(response.status)") }
            list = StoredChapterList(url: url, chapters: try JSONChapters.parse(response.body))
        } catch {
            logger.warning("episode \(id): chapters file \(url): \(error)")
            list = StoredChapterList(url: url, chapters: [], error: String(describing: error))
        }
        try? await Self.lane.run { () throws(LibraryError) in try library.saveChapterList(id, .json, list) }
        return list.chapters
    }

    // MARK: - The media file's own

    /// What a reader left when podsd died inside it: the file's one attempt is spent.
    package static let diedReading = "podsd stopped while reading this file's chapters"

    /// The media file's own chapters: stored after the first read, whatever it
    /// gave. A file a reader fails on (or dies on: the attempt is written down
    /// before the read) is not read again; only bytes that did not come in
    /// time leave it for next time.
    private func mediaChapters(_ episode: LibraryEpisode, url: String?, media: (any RandomAccessMedia)?) async -> [EpisodeChapter] {
        guard let url else { return [] }
        let id = episode.id
        let (library, artwork, logger, reading) = (library, artwork, logger, reading)
        // A file: enclosure is read only for a podcast whose own feed is a file (URLPolicy).
        let path = url.hasPrefix("file:") && episode.urlPolicy.isLocal ? URL(string: url)?.path : nil
        return await Self.lane.run {
            if let stored = try? library.chapterList(id, .media, url: url) { return stored.chapters }
            guard path != nil || media != nil else { return [] }
            // Marked while it lasts: a reader that crashes podsd costs the file its tags (at the next start).
            reading.begin(id, url: url)
            defer { reading.end() }
            do throws(ChapterError) {
                var chapters: [EpisodeChapter]
                if let path {
                    chapters = try EmbeddedChapters.read(from: try FileChapterBytes(path: path))
                } else if let media {
                    chapters = try EmbeddedChapters.read(from: MediaChapterBytes(media: media, deadline: .now + Self.mediaDeadline))
                } else {
                    return []
                }
                for index in chapters.indices {
                    guard let image = chapters[index].embeddedImage else { continue }
                    chapters[index].image = artwork?.storeEmbedded(image.bytes, key: "\(url)#chapter\(index)", fileExtension: image.fileExtension)
                    chapters[index].embeddedImage = nil
                }
                try? library.saveChapterList(id, .media, StoredChapterList(url: url, chapters: chapters))
                return chapters
            } catch {
                logger.warning("episode \(id): could not read the chapters in \(url): \(error)")
                if error.isTransient {
                    // Bytes that did not come in time: read again next time.
                    try? library.deleteChapterList(id, .media)
                } else {
                    try? library.saveChapterList(id, .media, StoredChapterList(url: url, chapters: [], error: error.message))
                }
                return []
            }
        }
    }
}
