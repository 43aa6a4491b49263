import PodsDBus

/// Marks `org.mpris.MediaPlayer2.TrackList`'s methods.
public enum MPRISTrackListInterface {}
/// A method of `org.mpris.MediaPlayer2.TrackList`: the playing episode and the queue after it.
public typealias MPRISTrackListMethod = InterfaceMethod<MPRISTrackListInterface>

extension MPRIS {
    /// `a{sv}`, one track's `Metadata`.
    public static let metadataType = DBusType.dictionary(key: .string, value: .variant)
    /// `ao`, a list of track ids.
    public static let trackIDsType = DBusType.array(.objectPath)
}

extension InterfaceMethod where Interface == MPRISTrackListInterface {
    public static let getTracksMetadata = MPRISTrackListMethod(
        "GetTracksMetadata", [DBusArgument("TrackIds", MPRIS.trackIDsType)], [DBusArgument("Metadata", .array(MPRIS.metadataType))])
    /// A library episode (`pods:episode/<id>` or its audio's URL) joins the queue; any other URI plays with `SetAsCurrent`.
    public static let addTrack = MPRISTrackListMethod(
        "AddTrack", [DBusArgument("Uri", .string), DBusArgument("AfterTrack", .objectPath), DBusArgument("SetAsCurrent", .bool)])
    public static let removeTrack = MPRISTrackListMethod("RemoveTrack", [DBusArgument("TrackId", .objectPath)])
    public static let goTo = MPRISTrackListMethod("GoTo", [DBusArgument("TrackId", .objectPath)])

    /// Every method, in introspection order.
    public static let all: [MPRISTrackListMethod] = [getTracksMetadata, addTrack, removeTrack, goTo]
}

extension MPRIS {
    /// `org.mpris.MediaPlayer2.TrackList`'s properties.
    public enum TrackListProperty {
        /// Announced by invalidation (clients read it again), as the specification asks.
        public static let tracks = MPRISProperty("Tracks", MPRIS.trackIDsType)
        public static let canEditTracks = MPRISProperty("CanEditTracks", .bool)

        public static let all = [tracks, canEditTracks]
    }

    /// `org.mpris.MediaPlayer2.TrackList`'s signals.
    public enum TrackListSignal {
        public static let trackListReplaced = DBusSignalDescription(
            "TrackListReplaced", arguments: [DBusArgument("Tracks", MPRIS.trackIDsType), DBusArgument("CurrentTrack", .objectPath)])
        public static let trackAdded = DBusSignalDescription(
            "TrackAdded", arguments: [DBusArgument("Metadata", MPRIS.metadataType), DBusArgument("AfterTrack", .objectPath)])
        public static let trackRemoved = DBusSignalDescription("TrackRemoved", arguments: [DBusArgument("TrackId", .objectPath)])
        public static let trackMetadataChanged = DBusSignalDescription(
            "TrackMetadataChanged", arguments: [DBusArgument("TrackId", .objectPath), DBusArgument("Metadata", MPRIS.metadataType)])

        public static let all = [trackListReplaced, trackAdded, trackRemoved, trackMetadataChanged]
    }
}
