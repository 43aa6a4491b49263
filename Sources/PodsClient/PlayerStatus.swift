/// The player's state as `pods status` shows it (and `--json` prints it).
public struct PlayerStatus: Sendable, Equatable, Codable {
    /// `Playing`, `Paused` or `Stopped`.
    public var state: String
    public var title: String?
    public var url: String?
    /// Seconds.
    public var position: Double
    /// Seconds, once known.
    public var duration: Double?
    public var rate: Double
    public var volume: Double
    /// The library episode that is loaded, if it is one.
    public var episodeId: Int64?
    public var podcastId: Int64?
    /// Playing, but waiting for bytes that are not downloaded yet.
    public var buffering = false
    /// The share of the loaded episode on disk, 0...1 (nil: unknown).
    public var cached: Double?

    public init(state: String, title: String?, url: String?, position: Double, duration: Double?, rate: Double, volume: Double) {
        self.state = state
        self.title = title
        self.url = url
        self.position = position
        self.duration = duration
        self.rate = rate
        self.volume = volume
    }

    enum CodingKeys: String, CodingKey {
        case state, title, url, position, duration, rate, volume, episodeId, podcastId, buffering, cached
    }

    /// Writes every key, with `null` for what is unknown.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(title, forKey: .title)
        try container.encode(url, forKey: .url)
        try container.encode(position, forKey: .position)
        try container.encode(duration, forKey: .duration)
        try container.encode(rate, forKey: .rate)
        try container.encode(volume, forKey: .volume)
        try container.encode(episodeId, forKey: .episodeId)
        try container.encode(podcastId, forKey: .podcastId)
        try container.encode(buffering, forKey: .buffering)
        try container.encode(cached, forKey: .cached)
    }
}
