import Foundation
import Logging
import PodsHTTP
import PodsLibrary

// MARK: - Creating (the probe)

extension EpisodeCache {
    /// Makes a new cache for `url`: a probe GET of the first bytes learns the
    /// length and validators, and its bytes are kept (typefind reads them
    /// first). Blocks until the probe's head is in; its body goes on arriving.
    ///
    /// A server that answers the probe with the whole file (200) keeps
    /// sending it, and that one transfer becomes the download.
    static func create(
        episodeID: Int64, url: String, directory: URL, fileName: String, http: HTTPClient, library: Library,
        tuning: Tuning, logger: Logger, onEvent: @escaping @Sendable (Event) -> Void
    ) throws(CacheError) -> EpisodeCache {
        let path = directory.appendingPathComponent(fileName).path
        let handoff = Handoff()
        let thread = Thread {
            var cache: EpisodeCache?
            var progress = JobProgress(span: 0..<tuning.probeBytes)
            var outcome: HTTPError?
            do throws(HTTPError) {
                try http.streamingGet(
                    url, range: 0..<tuning.probeBytes,
                    head: { head in
                        guard let length = head.totalLength, length > 0, head.status == 200 || head.rangeStart == 0 else {
                            handoff.resolve(.failure(CacheError(.unknownLength, "\(url): the server does not say how long the file is")))
                            return false
                        }
                        // A length from the server is checked before a file is sized by it (a sparse file of
                        // 2^60 bytes is made at once on XFS or Btrfs): no episode is that long.
                        guard length <= EpisodeCache.maximumLength else {
                            handoff.resolve(.failure(CacheError(.unknownLength, "\(url): the server says the file is \(length) bytes")))
                            return false
                        }
                        do throws(CacheError) {
                            let file = try ScratchFile(path: path, length: nil)
                            try file.reset(length: length)
                            let ranged = head.status == 206
                            let record = CachedMedia(
                                episodeId: episodeID, url: url, finalURL: head.finalURL, length: length, etag: head.etag,
                                lastModified: head.lastModified, acceptsRanges: ranged, fileName: fileName)
                            let made = EpisodeCache(record: record, file: file, url: url, http: http, library: library,
                                                    tuning: tuning, logger: logger, onEvent: onEvent)
                            progress = JobProgress(span: 0..<(ranged ? min(tuning.probeBytes, length) : length))
                            made.reserve(progress.span)
                            cache = made
                            handoff.resolve(.success(made))
                            return true
                        } catch {
                            handoff.resolve(.failure(error))
                            return false
                        }
                    },
                    body: { bytes in cache?.write(bytes, &progress) ?? false },
                    isCancelled: { cache?.isStopping ?? false },
                    // Someone waits on the probe: a play, a chapter list, a download just asked for.
                    priority: .urgent)
            } catch {
                outcome = error
            }
            if let cache {
                cache.finish(progress, voided: false, error: outcome)
            } else {
                handoff.resolve(.failure(CacheError(.network, outcome?.message ?? "\(url): no answer")))
            }
        }
        thread.name = "pods.cache.probe"
        thread.start()
        return try handoff.wait().get()
    }

    /// The probe's first answer, handed from its thread to the opener.
    private final class Handoff: @unchecked Sendable {
        // @unchecked Sendable, proven: `result` is touched only with `condition` locked.
        private let condition = NSCondition()
        private var result: Result<EpisodeCache, CacheError>?

        /// The first result wins.
        func resolve(_ value: Result<EpisodeCache, CacheError>) {
            condition.lock()
            if result == nil { result = value }
            condition.broadcast()
            condition.unlock()
        }

        func wait() -> Result<EpisodeCache, CacheError> {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let result { return result }
                condition.wait()
            }
        }
    }
}
