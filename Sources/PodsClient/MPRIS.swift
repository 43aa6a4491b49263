import PodsDBus

/// Names the MPRIS service and its clients agree on.
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
    /// `Identity`, matching the desktop file's Name.
    public static let identity = "Pods"
    /// `DesktopEntry`: the basename of the installed `pods.desktop` (`data/pods.desktop.in`).
    public static let desktopEntry = "pods"

    /// The number at the end of `/org/pods/episode/12` (with `prefix` `episodePathPrefix`).
    public static func id(in path: DBusObjectPath, under prefix: DBusObjectPath) -> Int64? {
        guard path.rawValue.hasPrefix(prefix.rawValue + "/") else { return nil }
        return Int64(path.rawValue.dropFirst(prefix.rawValue.count + 1))
    }
}
