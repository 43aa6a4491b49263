/// Which track the player has, as plain values: a library episode (the
/// same id each time it loads) or the `load`-th other file or stream. The
/// interfaces spell it as MPRIS wants (an object path).
public enum TrackID: Sendable, Hashable {
    case episode(Int64)
    case other(load: Int)
}
