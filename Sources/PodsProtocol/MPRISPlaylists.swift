import PodsDBus

/// Marks `org.mpris.MediaPlayer2.Playlists`'s methods.
public enum MPRISPlaylistsInterface {}
/// A method of `org.mpris.MediaPlayer2.Playlists`: the queue, Pods' playlists and each podcast.
public typealias MPRISPlaylistsMethod = InterfaceMethod<MPRISPlaylistsInterface>

extension MPRIS {
    /// `(oss)`: a playlist's id, name and icon.
    public static let playlistType = DBusType.structure([.objectPath, .string, .string])
}

extension InterfaceMethod where Interface == MPRISPlaylistsInterface {
    public static let activatePlaylist = MPRISPlaylistsMethod("ActivatePlaylist", [DBusArgument("PlaylistId", .objectPath)])
    /// A page of playlists in one of `Orderings`.
    public static let getPlaylists = MPRISPlaylistsMethod(
        "GetPlaylists",
        [DBusArgument("Index", .uint32), DBusArgument("MaxCount", .uint32), DBusArgument("Order", .string), DBusArgument("ReverseOrder", .bool)],
        [DBusArgument("Playlists", .array(MPRIS.playlistType))])

    /// Every method, in introspection order.
    public static let all: [MPRISPlaylistsMethod] = [activatePlaylist, getPlaylists]
}

extension MPRIS {
    /// `org.mpris.MediaPlayer2.Playlists`'s properties.
    public enum PlaylistsProperty {
        public static let playlistCount = MPRISProperty("PlaylistCount", .uint32)
        public static let orderings = MPRISProperty("Orderings", .array(.string))
        /// `(b(oss))`: whether one is active, and which.
        public static let activePlaylist = MPRISProperty("ActivePlaylist", .structure([.bool, MPRIS.playlistType]))

        public static let all = [playlistCount, orderings, activePlaylist]
    }

    /// A playlist's name or icon changed.
    public static let playlistChanged = DBusSignalDescription("PlaylistChanged", arguments: [DBusArgument("Playlist", MPRIS.playlistType)])
}
