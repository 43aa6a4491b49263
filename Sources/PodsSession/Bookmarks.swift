import Foundation
import PodsChapters
import PodsLibrary
import PodsPlayer

/// Where the session tells the desktop a bookmark was taken (a
/// notification, in podsd).
public protocol BookmarkAnnouncer: Sendable {
    func announce(_ bookmark: Bookmark) async
}

/// Bookmarks: a moment of the loaded episode kept with a note (and the
/// transcript's line there, when the transcript is kept), listed, and
/// played from without moving the episode's resume position.
package struct Bookmarks: Sendable {
    let library: Library
    let playback: Playback
    let controller: PlayerController
    let transcripts: TranscriptLoader
    let announcer: (any BookmarkAnnouncer)?
    /// How long before its moment a bookmark plays from, so the listener hears what led to it.
    package static let lead: Duration = .seconds(5)

    package init(library: Library, playback: Playback, controller: PlayerController, announcer: (any BookmarkAnnouncer)?) {
        self.library = library
        self.playback = playback
        self.controller = controller
        self.transcripts = TranscriptLoader(library: library)
        self.announcer = announcer
    }

    /// Marks where the loaded episode is now (playing or paused); with
    /// nothing loaded, an error and nothing written.
    package func take(note: String) async throws(SessionError) -> Bookmark {
        guard let episodeID = await playback.loaded?.id,
              await controller.currentState().track?.episode?.episodeID == episodeID else {
            throw SessionError.failed("no episode is loaded: a bookmark marks a moment of the episode playing")
        }
        let seconds = await controller.position() / .seconds(1)
        let cue = await transcripts.cachedCue(of: episodeID, at: seconds)
        let library = library
        let bookmark = try await LibraryWork.run { () throws(LibraryError) in
            try library.addBookmark(episode: episodeID, position: seconds, note: note, cue: cue)
        }
        if let announcer { Task { await announcer.announce(bookmark) } }
        return bookmark
    }

    /// Bookmarks oldest first, of `episode` (nil: every one), `limit` from `offset`.
    package func list(episode: Int64?, offset: Int, limit: Int) async throws(SessionError) -> [Bookmark] {
        let library = library
        return try await LibraryWork.run { () throws(LibraryError) in
            try library.bookmarks(episode: episode, offset: offset, limit: limit)
        }
    }

    package func delete(_ id: Int64) async throws(SessionError) {
        let library = library
        try await LibraryWork.run { () throws(LibraryError) in try library.deleteBookmark(id) }
    }

    /// Plays the bookmark's episode from `lead` before its moment; the
    /// episode's resume position stays where it was (`Playback.play(episodeID:detourFrom:)`).
    package func play(_ id: Int64) async throws(SessionError) {
        let library = library
        let bookmark = try await LibraryWork.run { () throws(LibraryError) in try library.bookmark(id) }
        let start = max(.zero, .mediaSeconds(bookmark.position) - Self.lead)
        try await playback.play(episodeID: bookmark.episodeId, detourFrom: start)
    }
}
