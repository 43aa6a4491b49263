import PodsDBus
import PodsProtocol

/// The player's state as `pods status` shows it (and `--json` prints it).
public struct PlayerStatus: Sendable, Equatable, Codable {
    /// `Playing`, `Paused` or `Stopped`.
    public var state: MPRIS.PlaybackStatus
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
    /// The chapter playing, when the episode has chapters.
    public var chapter: Chapter?
    /// The sleep timer, when one is set.
    public var sleep: Sleep?
    /// Seconds of silence trimmed from this episode so far.
    public var silenceSkipped = 0.0
    /// The loudness levelling's gain now, dB; nil while `loudness` is off.
    public var loudnessGain: Double?
    /// The transcript line playing, when the episode has a timed transcript.
    public var cue: Cue?
    /// Why the last track stopped on an error, if it did.
    public var lastError: String?
    /// Why playback paused by itself (the output device went away), until it plays again.
    public var pausedBecause: String?

    /// `"chapter": {"index", "title", "start"}`.
    public struct Chapter: Sendable, Equatable, Codable {
        /// From 1.
        public var index: Int
        public var title: String
        /// Seconds.
        public var start: Double

        public init(index: Int, title: String, start: Double) {
            self.index = index
            self.title = title
            self.start = start
        }
    }

    /// `"cue": {"index", "start", "text"}`: MPRIS `pods:cueIndex`, `pods:cueStart`, `pods:cue`.
    public struct Cue: Sendable, Equatable, Codable {
        /// From 1.
        public var index: Int
        /// Seconds.
        public var start: Double
        public var text: String

        public init(index: Int, start: Double, text: String) {
            (self.index, self.start, self.text) = (index, start, text)
        }
    }

    /// `"sleep": {"mode", "remaining"}`.
    public struct Sleep: Sendable, Equatable, Codable {
        /// `time`, `episode` or `chapter`.
        public var mode: String
        /// Seconds until the pause, when known.
        public var remaining: Double?

        public init(mode: String, remaining: Double?) {
            self.mode = mode
            self.remaining = remaining
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(mode, forKey: .mode)
            try container.encode(remaining, forKey: .remaining)
        }
    }

    public init(state: MPRIS.PlaybackStatus, title: String?, url: String?, position: Double, duration: Double?, rate: Double, volume: Double) {
        self.state = state
        self.title = title
        self.url = url
        self.position = position
        self.duration = duration
        self.rate = rate
        self.volume = volume
    }

    enum CodingKeys: String, CodingKey {
        case state, title, url, position, duration, rate, volume, episodeId, podcastId, buffering, cached, chapter, cue, sleep, silenceSkipped, loudnessGain
        case lastError, pausedBecause
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
        try container.encode(chapter, forKey: .chapter)
        try container.encode(cue, forKey: .cue)
        try container.encode(sleep, forKey: .sleep)
        try container.encode(silenceSkipped, forKey: .silenceSkipped)
        try container.encode(loudnessGain, forKey: .loudnessGain)
        try container.encode(lastError, forKey: .lastError)
        try container.encode(pausedBecause, forKey: .pausedBecause)
    }

    /// Adds what `org.pods.Player1.Extras` said.
    public mutating func add(extras: DBusValue) {
        let values = extras.stringKeyedDictionary ?? [:]
        if let chapter = values["chapter"]?.stringKeyedDictionary, let index = chapter["index"]?.int64Value {
            self.chapter = Chapter(index: Int(index), title: chapter["title"]?.stringValue ?? "",
                                   start: chapter["start"]?.doubleValue ?? 0)
        }
        if let sleep = values["sleep"]?.stringKeyedDictionary, let mode = sleep["mode"]?.stringValue {
            self.sleep = Sleep(mode: mode, remaining: sleep["remaining"]?.doubleValue)
        }
        silenceSkipped = values["silenceSkipped"]?.doubleValue ?? 0
        loudnessGain = values["loudnessGain"]?.doubleValue
        lastError = values["lastError"]?.stringValue
        pausedBecause = values["pausedBecause"]?.stringValue
    }
}
