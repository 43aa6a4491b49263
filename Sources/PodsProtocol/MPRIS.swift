import PodsDBus

/// Names the MPRIS service and its clients agree on, declared once for
/// podsd and `pods` alike (as `org.pods.*` is).
public enum MPRIS {
    public static let busName = "org.mpris.MediaPlayer2.pods"
    public static let objectPath = DBusObjectPath(validLiteral: "/org/mpris/MediaPlayer2")
    public static let rootInterface = "org.mpris.MediaPlayer2"
    public static let playerInterface = "org.mpris.MediaPlayer2.Player"
    public static let trackListInterface = "org.mpris.MediaPlayer2.TrackList"
    public static let playlistsInterface = "org.mpris.MediaPlayer2.Playlists"
    /// "No track" for `SetPosition`, `TrackList` and friends.
    public static let noTrack = DBusObjectPath(validLiteral: "/org/mpris/MediaPlayer2/TrackList/NoTrack")
    /// Where Pods puts its track ids (outside the reserved `/org/mpris`).
    public static let trackPathPrefix = DBusObjectPath(validLiteral: "/org/pods/track")
    /// Where episodes from the library have their track ids.
    public static let episodePathPrefix = DBusObjectPath(validLiteral: "/org/pods/episode")
    /// Where podcasts have their playlist ids.
    public static let podcastPathPrefix = DBusObjectPath(validLiteral: "/org/pods/podcast")
    /// Playlists Pods keeps (`Playlists`): `/org/pods/playlist/<id>`.
    public static let playlistPathPrefix = DBusObjectPath(validLiteral: "/org/pods/playlist")
    /// The queue, as a playlist.
    public static let queuePath = DBusObjectPath(validLiteral: "/org/pods/queue")
    /// `Identity`, matching the desktop file's Name.
    public static let identity = "Pods"
    /// `DesktopEntry`: the basename of the installed `pods.desktop` (`data/pods.desktop.in`).
    public static let desktopEntry = "pods"

    /// The number at the end of `/org/pods/episode/12` (with `prefix` `episodePathPrefix`).
    public static func id(in path: DBusObjectPath, under prefix: DBusObjectPath) -> Int64? {
        guard path.rawValue.hasPrefix(prefix.rawValue + "/") else { return nil }
        return Int64(path.rawValue.dropFirst(prefix.rawValue.count + 1))
    }

    /// The URI scheme of a library episode, `pods:episode/<id>`: what
    /// `OpenUri` and `AddTrack` take besides files and http(s).
    public static let episodeScheme = "pods"

    /// The episode id a `pods:episode/<id>` URI names; nil for any other URI.
    public static func episodeID(inURI uri: String) -> Int64? {
        guard uri.hasPrefix(episodeScheme + ":episode/") else { return nil }
        return Int64(uri.dropFirst(episodeScheme.count + ":episode/".count)).flatMap { $0 > 0 ? $0 : nil }
    }

    /// The `Metadata` keys podsd writes and `pods` reads.
    public enum Metadata {
        public static let trackID = "mpris:trackid"
        public static let length = "mpris:length"
        public static let artURL = "mpris:artUrl"
        public static let title = "xesam:title"
        public static let album = "xesam:album"
        public static let artist = "xesam:artist"
        public static let albumArtist = "xesam:albumArtist"
        public static let url = "xesam:url"
        public static let trackNumber = "xesam:trackNumber"
        /// The library's ids of the episode and its podcast (Pods' own keys).
        public static let episodeID = "pods:episodeId"
        public static let podcastID = "pods:podcastId"
        /// The episode's title while `xesam:title` is the playing chapter's.
        public static let episodeTitle = "pods:episodeTitle"
        /// The playing chapter's number (from 1).
        public static let chapter = "pods:chapter"
        /// The transcript's lines around the one playing, as LRC (`[mm:ss.xx]text`).
        public static let text = "xesam:asText"
        /// The transcript's line playing, and its number (from 1).
        public static let cue = "pods:cue"
        public static let cueIndex = "pods:cueIndex"
        /// The line's start, seconds into the episode.
        public static let cueStart = "pods:cueStart"
    }
}
