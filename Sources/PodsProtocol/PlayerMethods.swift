import PodsDBus

/// Names of Pods' own player interface: what MPRIS has no word for
/// (chapters, skips, the sleep timer, playback settings).
public enum PlayerNames {
    public static let objectPath = DBusObjectPath(validLiteral: "/org/pods/Player")
    public static let interface = "org.pods.Player1"
}

/// Marks `org.pods.Player1`'s methods.
public enum PlayerInterface {}
/// A method of `org.pods.Player1`.
public typealias PlayerMethod = InterfaceMethod<PlayerInterface>

extension InterfaceMethod where Interface == PlayerInterface {
    // MARK: - Chapters

    /// An episode's merged chapters (jump points only), 0 for the loaded one.
    public static let chapters = PlayerMethod(
        "Chapters", [DBusArgument("episode", .int64)], [items("chapters", PlayerItems.chapter)], timeout: .seconds(60), reads: true)
    /// `next`, `prev`, or a chapter's index (from 1); a `Seeked` follows.
    public static let goToChapter = PlayerMethod("GoToChapter", [DBusArgument("chapter", .string)])

    // MARK: - Skips and the sleep timer

    /// `forward` or `back` by `seconds` (0: the configured interval).
    public static let skip = PlayerMethod("Skip", [DBusArgument("direction", .string), DBusArgument("seconds", .double)])
    /// `30m`, `90s`, `1h`, `end`, `chapter` or `off` (see PodsSettings' `SleepRequest`).
    public static let setSleepTimer = PlayerMethod("SetSleepTimer", [DBusArgument("timer", .string)])

    // MARK: - Settings

    /// Every setting (`key` ""), or one, for the player (`podcast` "") or a
    /// podcast (an id or title prefix): items in `PlayerItems.setting`.
    public static let config = PlayerMethod(
        "Config", [DBusArgument("podcast", .string), DBusArgument("key", .string)], [items("settings", PlayerItems.setting)], reads: true)
    /// Sets a setting from its text form (`1.5`, `5%`, `true`, `episode`).
    public static let setConfig = PlayerMethod(
        "SetConfig", [DBusArgument("podcast", .string), DBusArgument("key", .string), DBusArgument("value", .string)])
    /// Removes a value, so the podcast takes the player's (or the player the default).
    public static let unsetConfig = PlayerMethod("UnsetConfig", [DBusArgument("podcast", .string), DBusArgument("key", .string)])

    // MARK: - Bookmarks

    /// Marks where the loaded episode is now, with `note` (up to 1,000
    /// characters; may be empty); returns the bookmark's id. Nothing loaded:
    /// an error. A desktop notification says it was kept.
    public static let bookmark = PlayerMethod("Bookmark", [DBusArgument("note", .string)], [DBusArgument("bookmark", .int64)])

    // MARK: - Status

    /// What `pods status` shows beyond MPRIS: the chapter, the sleep timer,
    /// the silence skipped.
    public static let extras = PlayerMethod("Extras", [], [item("extras", PlayerItems.extras)], reads: true)

    /// Every method, in introspection order.
    public static let all: [PlayerMethod] = [chapters, goToChapter, skip, setSleepTimer, bookmark, config, setConfig, unsetConfig, extras]
}

/// The items `org.pods.Player1` sends.
public enum PlayerItems {
    /// One chapter, as `pods chapters --json` prints it.
    public static let chapter = ItemSchema("chapter", [
        ItemField("index", .int32), ItemField("start", .double), .maybe("end", .double), ItemField("title", .string),
        .maybe("url", .string), .maybe("image", .string), ItemField("source", .string),
        ItemField("skipped", .bool),
    ])

    /// One setting: its value in force, its default, and where the value
    /// comes from (`default`, `config`, `podcast`).
    public static let setting = ItemSchema("setting", [
        ItemField("key", .string), ItemField("value", .string), ItemField("default", .string), ItemField("source", .string),
        ItemField("help", .string),
        /// A secret (the Podcast Index key): its `value` says only "(set)", and a client never shows it back.
        .maybe("secret", .bool),
    ])

    /// The chapter playing now.
    public static let currentChapter = ItemSchema("currentChapter", [
        ItemField("index", .int32), ItemField("title", .string), ItemField("start", .double),
    ])

    /// The sleep timer: `time`, `episode` or `chapter`; seconds left when known.
    public static let sleep = ItemSchema("sleep", [ItemField("mode", .string), .maybe("remaining", .double)])

    /// A transcript line as it is heard (`pods transcript --follow --json`, one object a line).
    public static let heardCue = ItemSchema("heardCue", [
        ItemField("index", .int32), .maybe("start", .double), ItemField("text", .string),
    ])

    public static let extras = ItemSchema("extras", [
        .maybe("chapter", LibraryItems.variantDictionary, .object(currentChapter)),
        .maybe("sleep", LibraryItems.variantDictionary, .object(sleep)),
        ItemField("silenceSkipped", .double),
        /// The loudness levelling's gain now, dB, while `loudness` is on.
        .maybe("loudnessGain", .double),
        /// Why the last track stopped on an error (a stream that failed after `OpenUri` returned, still loading).
        .maybe("lastError", .string),
        /// Why playback paused by itself (the output device went away).
        .maybe("pausedBecause", .string),
    ])
}
