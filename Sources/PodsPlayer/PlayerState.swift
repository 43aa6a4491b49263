import PodsChapters
import PodsPlayback

/// Whether the player plays (MPRIS spells it `MPRIS.PlaybackStatus`).
public enum PlaybackStatus: Sendable {
    case playing
    case paused
    case stopped
}

/// The loaded track, as the player describes it.
public struct TrackInfo: Sendable, Equatable {
    /// Unique per load, so clients see every track change.
    public var trackID: TrackID
    public var source: MediaSource
    public var tags: MediaTags
    public var duration: Duration?
    /// Set when the track is an episode from the library.
    public var episode: EpisodeMetadata?
    /// Which load put it here (`PlayerController.announceLoad`'s order):
    /// an event about it is stale once a later load was announced.
    public var load = 0

    /// The episode's title, else the tag title, else the file name.
    public var title: String { episode?.title ?? tags.title ?? source.displayName }
}

/// What MPRIS shows for an episode from the library.
public struct EpisodeMetadata: Sendable, Equatable {
    public var episodeID: Int64
    public var podcastID: Int64
    public var title: String
    /// The podcast's title (`xesam:album`).
    public var podcastTitle: String
    public var author: String?
    public var artworkURL: String?

    public init(episodeID: Int64, podcastID: Int64, title: String, podcastTitle: String, author: String?, artworkURL: String?) {
        self.episodeID = episodeID
        self.podcastID = podcastID
        self.title = title
        self.podcastTitle = podcastTitle
        self.author = author
        self.artworkURL = artworkURL
    }

    /// The same for every load of the episode (MPRIS: `/org/pods/episode/<id>`, stable across restarts).
    public var trackID: TrackID { .episode(episodeID) }
}

/// One consistent view of the player: what MPRIS and the CLI show.
public struct PlayerState: Sendable, Equatable {
    public var status: PlaybackStatus = .stopped
    public var track: TrackInfo?
    public var rate: Double = 1
    public var volume: Double = 1
    public var canSeek = false
    /// Waiting for network data: MPRIS still says Playing, the position holds.
    public var isBuffering = false
    /// Why the last load or playback failed.
    public var lastError: String?
    /// Why playback paused by itself (the output device went away), until it plays again.
    public var pausedBecause: String?
    /// The chapter playing, when the track has chapters.
    public var chapter: PlayingChapter?
    /// The playing chapter's image (a `file://` URI), shown instead of the episode's.
    public var chapterImage: String?
    /// The transcript line playing, when the track has a timed transcript;
    /// it follows playback only while playing.
    public var cue: PlayingCue?
    /// What MPRIS `CanGoNext` and `CanGoPrevious` say: whether `Next` and
    /// `Previous` have somewhere to go.
    public var canGoNext = false
    public var canGoPrevious = false
}

/// What `Next` skips to first.
public enum NextAction: String, Sendable, CaseIterable {
    /// The next chapter while one remains, then the next episode.
    case chapter
    /// The next episode, whatever the chapters.
    case episode
}
