import Synchronization

/// What a follower of the controller's states needs to tell apart: another
/// track, or a change of the same one (its length, its artwork arriving).
public final class TrackWatch: Sendable {
    /// What changed about the track since the state before.
    public struct Change: Sendable, Equatable {
        /// Another track than before (or none, or one after none).
        public var newTrack: Bool
        /// Anything of it: a new track too.
        public var changed: Bool
    }

    private let last = Mutex<TrackInfo?>(nil)

    public init() {}

    /// Notes the track of a published state; what changed since the last one noted.
    public func note(_ track: TrackInfo?) -> Change {
        last.withLock { last in
            defer { last = track }
            return Change(newTrack: last?.trackID != track?.trackID, changed: last != track)
        }
    }
}
