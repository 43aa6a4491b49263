import PodsLibrary

/// Playlists for every interface alike (`pods playlist`, `org.pods.Library2`,
/// MPRIS `Playlists`): made of rules or kept by hand, read in pages, and
/// played: the one played is what plays next after each episode, until
/// another (or the queue, or a podcast) is played. Each edit returns once
/// the library's followers have heard of it.
package struct PlaylistService: Sendable {
    let library: Library
    let playback: Playback

    package init(library: Library, playback: Playback) {
        self.library = library
        self.playback = playback
    }

    /// What names the queue where a playlist is asked for.
    package static let queueName = "queue"

    package func create(_ name: String, rules: PlaylistRules?) async throws(SessionError) -> EpisodePlaylist {
        let library = library
        let playlist = try await LibraryWork.run { () throws(LibraryError) in try library.createPlaylist(name, rules: rules) }
        await library.changes.delivered()
        return playlist
    }

    package func delete(_ text: String) async throws(SessionError) {
        try await edit { library throws(LibraryError) in try library.deletePlaylist(library.playlist(matching: text).id) }
    }

    package func add(_ text: String, episodes: [Int64], at index: Int?) async throws(SessionError) {
        try await edit { library throws(LibraryError) in try library.addToPlaylist(library.playlist(matching: text).id, episodes, at: index) }
    }

    package func remove(_ text: String, episode: Int64) async throws(SessionError) {
        try await edit { library throws(LibraryError) in try library.removeFromPlaylist(library.playlist(matching: text).id, episode) }
    }

    /// Every playlist, by name, with what each holds now.
    package func list() async throws(SessionError) -> [EpisodePlaylist] {
        let library = library
        return try await LibraryWork.run { () throws(LibraryError) in try library.playlists() }
    }

    package func playlist(_ text: String) async throws(SessionError) -> EpisodePlaylist {
        let library = library
        return try await LibraryWork.run { () throws(LibraryError) in try library.playlist(matching: text) }
    }

    /// The playlist's episodes in its order, `limit` from `offset` (`queue`: the queue's).
    package func episodes(_ text: String, offset: Int, limit: Int) async throws(SessionError) -> [EpisodeSummary] {
        let library = library
        return try await LibraryWork.run { () throws(LibraryError) in
            if text == Self.queueName { return try library.queue(offset: offset, limit: limit) }
            return try library.playlistEpisodes(library.playlist(matching: text).id, offset: offset, limit: limit)
        }
    }

    /// The active playlist's id (`QueuePlaylist.id` for the queue), nil when a podcast (or nothing) was played last.
    package func active() async throws(SessionError) -> Int64? {
        let library = library
        return try await LibraryWork.run { () throws(LibraryError) in try library.activePlaylist() }
    }

    /// Plays the playlist (`queue`: the queue) from its first episode and
    /// makes it what plays next; an empty one is an error and changes nothing.
    package func play(_ text: String) async throws(SessionError) {
        let library = library
        let (id, first) = try await LibraryWork.run { () throws(LibraryError) -> (Int64, Int64?) in
            if text == Self.queueName { return (QueuePlaylist.id, try library.queue(offset: 0, limit: 1).first?.id) }
            let playlist = try library.playlist(matching: text)
            return (playlist.id, try library.playlistEpisodes(playlist.id, offset: 0, limit: 1).first?.id)
        }
        guard let first else { throw SessionError.failed(text == Self.queueName ? "the queue is empty" : "the playlist \(text.prefix(100)) is empty") }
        try await LibraryWork.run { () throws(LibraryError) in try library.setActivePlaylist(id) }
        try await playback.play(episodeID: first)
        await library.changes.delivered()
    }

    /// A podcast was played as a playlist: no playlist is active any more.
    package func playedPodcast() async {
        let library = library
        try? await LibraryWork.run { () throws(LibraryError) in try library.setActivePlaylist(nil) }
    }

    private func edit(_ body: @escaping @Sendable (Library) throws(LibraryError) -> Void) async throws(SessionError) {
        try await LibraryWork.edit(library, body)
    }
}
