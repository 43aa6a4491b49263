import Foundation
import PodsClient

/// podsd as the window talks to it: calls run off the main thread, and
/// what they bring back is handed to `WindowApp` on the main actor (the
/// GLib loop serves it). The window never opens the library's files.
struct WindowBackend: Sendable {
    let player: PlayerClient
    var library: LibraryClient { LibraryClient(player) }
    var pods: PodsPlayerClient { PodsPlayerClient(player) }

    func podcasts() async throws(PlayerClient.Failure) -> [PodcastRow] {
        var rows: [PodcastRow] = []
        try await library.podcasts { page in rows += page.compactMap(Items.podcast) }
        return rows
    }

    /// One podcast's episodes, all of them, streamed off the bus as `pods episodes` reads them.
    func episodes(of podcast: Int64) async throws(PlayerClient.Failure) -> [EpisodeRow] {
        var rows: [EpisodeRow] = []
        try await library.episodes(podcast: String(podcast), unplayedOnly: false, limit: nil) { page in
            rows += page.compactMap(Items.episode)
        }
        return rows
    }
}
