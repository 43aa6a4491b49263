import PodsDBus
import PodsPlayer
import PodsProtocol
import PodsSession

/// How MPRIS spells the player's track ids: `/org/pods/episode/<id>` for a
/// library episode (the same across restarts), `/org/pods/track/<n>` for
/// the n-th other load.
extension TrackID {
    package var objectPath: DBusObjectPath {
        switch self {
        case .episode(let id): MPRIS.episodePathPrefix.appending(escaping: String(id))
        case .other(let load): MPRIS.trackPathPrefix.appending(escaping: String(load))
        }
    }

    /// The track an object path names (nil for `NoTrack` or a path no track has).
    package init?(objectPath: DBusObjectPath) {
        if let id = MPRIS.id(in: objectPath, under: MPRIS.episodePathPrefix) {
            self = .episode(id)
        } else if let load = MPRIS.id(in: objectPath, under: MPRIS.trackPathPrefix), let number = Int(exactly: load) {
            self = .other(load: number)
        } else {
            return nil
        }
    }
}

extension PlayerError: DBusErrorConvertible {
    /// The player's error under its D-Bus name.
    public var dbusError: DBusError {
        switch code {
        case .notSupported: .notSupported(message)
        case .invalidArgument: .invalidArgs(message)
        case .failed: .failed(message)
        }
    }
}

extension DBusError {
    package init(_ error: PlayerError) { self = error.dbusError }
}
