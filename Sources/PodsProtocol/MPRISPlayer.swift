import PodsDBus

/// Marks `org.mpris.MediaPlayer2.Player`'s methods.
public enum MPRISPlayerInterface {}
/// A method of `org.mpris.MediaPlayer2.Player`, described once for podsd
/// (which serves it) and `pods` (which calls it), as `org.pods.*`'s are.
public typealias MPRISPlayerMethod = InterfaceMethod<MPRISPlayerInterface>

extension InterfaceMethod where Interface == MPRISPlayerInterface {
    /// The next chapter, else the next episode (whose first bytes may take a while).
    public static let next = MPRISPlayerMethod("Next", timeout: .seconds(20))
    public static let previous = MPRISPlayerMethod("Previous", timeout: .seconds(20))
    public static let pause = MPRISPlayerMethod("Pause")
    public static let playPause = MPRISPlayerMethod("PlayPause")
    public static let stop = MPRISPlayerMethod("Stop")
    public static let play = MPRISPlayerMethod("Play")
    /// By `Offset` microseconds (negative goes back).
    public static let seek = MPRISPlayerMethod("Seek", [DBusArgument("Offset", .int64)])
    /// To `Position` microseconds of the track `TrackId` (ignored for another track).
    public static let setPosition = MPRISPlayerMethod("SetPosition", [DBusArgument("TrackId", .objectPath), DBusArgument("Position", .int64)])
    /// Plays a file or an http(s) URI; answers once it plays or fails.
    public static let openUri = MPRISPlayerMethod("OpenUri", [DBusArgument("Uri", .string)], timeout: .seconds(20))

    /// Every method, in introspection order.
    public static let all: [MPRISPlayerMethod] = [next, previous, pause, playPause, stop, play, seek, setPosition, openUri]
}

/// A property of an MPRIS interface: its name, type and whether clients may set it.
public struct MPRISProperty: Sendable {
    public let name: String
    public let type: DBusType
    public let writable: Bool

    init(_ name: String, _ type: DBusType, writable: Bool = false) {
        self.name = name
        self.type = type
        self.writable = writable
    }
}

extension MPRIS {
    /// `org.mpris.MediaPlayer2.Player`'s properties.
    public enum PlayerProperty {
        public static let playbackStatus = MPRISProperty("PlaybackStatus", .string)
        public static let rate = MPRISProperty("Rate", .double, writable: true)
        public static let metadata = MPRISProperty("Metadata", MPRIS.metadataType)
        public static let volume = MPRISProperty("Volume", .double, writable: true)
        /// Read when asked (no `PropertiesChanged`; `Seeked` says when it jumps).
        public static let position = MPRISProperty("Position", .int64)
        public static let minimumRate = MPRISProperty("MinimumRate", .double)
        public static let maximumRate = MPRISProperty("MaximumRate", .double)
        public static let canGoNext = MPRISProperty("CanGoNext", .bool)
        public static let canGoPrevious = MPRISProperty("CanGoPrevious", .bool)
        public static let canPlay = MPRISProperty("CanPlay", .bool)
        public static let canPause = MPRISProperty("CanPause", .bool)
        public static let canSeek = MPRISProperty("CanSeek", .bool)
        public static let canControl = MPRISProperty("CanControl", .bool)

        /// Every one, in the specification's order.
        public static let all = [playbackStatus, rate, metadata, volume, position, minimumRate, maximumRate,
                                 canGoNext, canGoPrevious, canPlay, canPause, canSeek, canControl]
        /// Those `PropertiesChanged` announces: all but `Position` (read when asked) and `CanControl` (constant).
        public static let signalled = all.filter { $0.name != position.name && $0.name != canControl.name }
    }

    /// `PlaybackStatus`'s values, spelled once for podsd and its clients.
    public enum PlaybackStatus: String, Sendable, Codable, CaseIterable {
        case playing = "Playing"
        case paused = "Paused"
        case stopped = "Stopped"
    }

    /// `org.mpris.MediaPlayer2.Player`'s one signal: the position jumped (`x` microseconds).
    public static let seeked = DBusSignalDescription("Seeked", arguments: [DBusArgument("Position", .int64)])
}
