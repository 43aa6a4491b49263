/// What the pipeline reports, translated from GStreamer bus messages.
public enum PlaybackEvent: Sendable {
    /// A state change or seek completed: the position is valid again.
    case asyncDone
    case durationChanged
    case tags(MediaTags)
    /// Network buffering, 0–100.
    case buffering(percent: Int)
    case endOfStream
    case error(PlaybackError)
    /// The loudest peak (dBFS) of the interval of media ending at `end`,
    /// while silence detection is on.
    case level(peak: Double, end: Duration)
    /// The audio output the sink plays on (a sound server's sink name); when
    /// it changed from another, `previousGone` says whether that one went
    /// away (headphones unplugged, a Bluetooth speaker gone) rather than the
    /// stream being moved by hand.
    case outputDevice(String, previousGone: Bool)
}

/// An event as the bus thread read it, with the engine's load generation
/// when it was posted, so events of an earlier source can be told apart.
public struct PipelineMessage: Sendable {
    enum Content: Sendable {
        case event(PlaybackEvent)
        /// A seek (by number) the owner stopped waiting for was refused.
        case seekRefused(Int)
        /// The pipeline (by number) did not finish an operation within the stall limit.
        case stalled(pipeline: Int)
    }

    let content: Content
    let generation: Int32

    init(event: PlaybackEvent, generation: Int32) {
        self.init(.event(event), generation: generation)
    }

    init(_ content: Content, generation: Int32) {
        self.content = content
        self.generation = generation
    }
}

/// Tags found in the media.
public struct MediaTags: Sendable, Hashable {
    public var title: String?
    public var artist: String?
    public var album: String?

    public init(title: String? = nil, artist: String? = nil, album: String? = nil) {
        self.title = title
        self.artist = artist
        self.album = album
    }

    /// Later tags win where they say something.
    public func merging(_ newer: MediaTags) -> MediaTags {
        MediaTags(title: newer.title ?? title, artist: newer.artist ?? artist, album: newer.album ?? album)
    }
}
