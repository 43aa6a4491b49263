import Foundation
import PodsConcurrency
import PodsFeedParser
import PodsHTTP
import PodsLibrary
import PodsTranscripts
import Synchronization

/// An episode's `podcast:transcript`: fetched once, read into cues (SRT,
/// WebVTT, JSON, HTML or plain text) and kept in the library.
package struct TranscriptLoader: Sendable {
    package let library: Library
    private let http: HTTPClient
    /// The last transcripts read, so that paging through one (`ListTranscript`, a page a call)
    /// decodes it once, not once a page: at most `recentKept`, each at most `Transcript.maximumCues`.
    private static let recent = Mutex<[(key: String, cues: [TranscriptCue])]>([])
    private static let recentKept = 4

    package init(library: Library) {
        self.library = library
        self.http = HTTPClient(maximumBytes: 16 << 20, deadline: .seconds(60))
    }

    /// The cues; an error (one line) when the episode has none, it cannot be
    /// fetched, or it is in a format Pods cannot read.
    package func cues(of episodeID: Int64) async throws(SessionError) -> [TranscriptCue] {
        let library = library
        let (episode, url, key, kept) = try await self.kept(episodeID)
        if let kept { return kept }
        let data = try await fetch(url, policy: episode.urlPolicy)
        // Written before the read, replaced after it: a reader that kills podsd costs the file one attempt.
        try await LibraryWork.run { () throws(LibraryError) in
            try library.saveTranscript(episodeID, url: url, format: Self.unreadable, cuesJSON: "podsd stopped while reading it")
        }
        let parsed: (format: Transcript.Format, cues: [TranscriptCue])
        do throws(TranscriptError) { parsed = try Transcript.parse(data) } catch {
            try? await LibraryWork.run { () throws(LibraryError) in
                try library.saveTranscript(episodeID, url: url, format: Self.unreadable, cuesJSON: error.message)
            }
            throw SessionError.failed("the transcript \(url) cannot be read: \(error.message)")
        }
        let json = (try? JSONEncoder().encode(parsed.cues)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        try await LibraryWork.run { () throws(LibraryError) in
            try library.saveTranscript(episodeID, url: url, format: parsed.format.rawValue, cuesJSON: json)
        }
        Self.remember(key, parsed.cues)
        return parsed.cues
    }

    /// The line of the episode's transcript at `seconds`, when the transcript
    /// is already kept and timed: nothing is fetched (a bookmark takes what is there).
    package func cachedCue(of episodeID: Int64, at seconds: Double) async -> String? {
        let cues = try? await kept(episodeID).cues
        return cues?.last { cue in
            guard let start = cue.start, start <= seconds else { return false }
            return cue.end.map { seconds < $0 } ?? true
        }?.text
    }

    /// The episode, its transcript's URL and cache key, and the cues already
    /// read (the recent ones, else the library's; nil: none kept yet). An
    /// episode without a transcript, or one a reader failed on, is an error.
    private func kept(_ episodeID: Int64) async throws(SessionError)
        -> (episode: LibraryEpisode, url: String, key: String, cues: [TranscriptCue]?) {
        let library = library
        let episode = try await LibraryWork.run { () throws(LibraryError) in try library.episode(episodeID) }
        guard let url = episode.episode.transcriptURL else {
            throw SessionError.notFound("episode \(episodeID) has no transcript")
        }
        let key = "\(library.directory.path) \(episodeID) \(url)"
        if let recent = Self.recent.withLock({ $0.first { $0.key == key }?.cues }) { return (episode, url, key, recent) }
        let stored = try await LibraryWork.run { () throws(LibraryError) in try library.transcript(episodeID, url: url) }
        if let stored, stored.format == Self.unreadable {
            // A reader that failed on this file (or died on it) had its one attempt.
            throw SessionError.failed("the transcript \(url) cannot be read: \(stored.cuesJSON)")
        }
        if let stored, let cues = try? JSONDecoder().decode([TranscriptCue].self, from: Data(stored.cuesJSON.utf8)) {
            Self.remember(key, cues)
            return (episode, url, key, cues)
        }
        return (episode, url, key, nil)
    }

    /// The stored format of a transcript a reader failed on; its cues column holds why.
    static let unreadable = "unreadable"

    private static func remember(_ key: String, _ cues: [TranscriptCue]) {
        recent.withLock { recent in
            recent.removeAll { $0.key == key }
            recent.append((key, cues))
            if recent.count > recentKept { recent.removeFirst() }
        }
    }

    private func fetch(_ url: String, policy: URLPolicy) async throws(SessionError) -> Data {
        if url.hasPrefix("file:") {
            switch policy.readLocalFile(url) {
            case .success(let data): return data
            case .failure(let error): throw SessionError.failed("the transcript cannot be read: \(error.message)")
            }
        }
        guard HTTPClient.isHTTP(url) else { throw SessionError.failed("the transcript's URL is not http(s): \(url)") }
        do {
            let response = try await http.get(url)
            guard (200..<300).contains(response.status) else {
                throw SessionError.failed("the transcript \(url) could not be fetched: the server answered \(response.status)")
            }
            return response.body
        } catch let error as SessionError {
            throw error
        } catch {
            throw SessionError.failed("the transcript \(url) could not be fetched: \(error)")
        }
    }
}
