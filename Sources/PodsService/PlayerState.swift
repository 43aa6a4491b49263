import PodsClient
import PodsDBus
import PodsPlayback

/// MPRIS's `Playback_Status`.
public enum PlaybackStatus: String, Sendable {
    case playing = "Playing"
    case paused = "Paused"
    case stopped = "Stopped"
}

/// The loaded track, as the player describes it.
public struct TrackInfo: Sendable, Equatable {
    /// Unique per load, so clients see every track change.
    public var trackID: DBusObjectPath
    public var source: MediaSource
    public var tags: MediaTags
    public var duration: Duration?

    /// The tag title, else the file name.
    public var title: String { tags.title ?? source.displayName }
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
}
