import PodsClient

/// What reaches the UI's thread from the bus: answers to its requests,
/// and podsd's signals.
enum UIEvent: Sendable {
    case podcasts([PodcastRow])
    /// A page of an episode list (`first`: it starts the list again).
    case episodes(List, podcast: Int64?, rows: [EpisodeRow], next: String, first: Bool)
    case queue([EpisodeRow])
    case downloads([EpisodeRow])
    case bookmarks([EpisodeRow])
    case playlists([EpisodeRow])
    case listening([EpisodeRow])
    case transcript([EpisodeRow])
    case page(EpisodeDetails)
    /// An episode's artwork as a PNG; nil when it has none or it could not be had.
    case picture(episodeID: Int64, png: [UInt8]?)
    case status(PlayerStatus)
    case results(term: String, [SearchRow])
    /// What a find found: each moment a row.
    case found(term: String, [EpisodeRow])
    /// One line for the listener; "!" first for an error.
    case message(String)
    case connected(Bool)
    case refreshProgress(done: Int, total: Int)
    /// Something the lists show changed: read it again.
    case changed(Change)
    /// A request failed; the list it was for stops waiting.
    case failed(List)

    enum List: Sendable { case episodes, newest, queue, downloads, bookmarks, playlists, listening, transcript, podcasts, search, found }

    typealias Change = UIChange
}

/// What podsd's signals say changed, that the lists may show.
package enum UIChange: Sendable {
    case podcasts, queue, downloads, player, bookmarks, playlists
    case episodes(podcast: Int64)
    case episode(Int64)
}
