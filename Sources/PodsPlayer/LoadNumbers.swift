import Synchronization

/// The numbers of the player's loads, in the order they were asked for:
/// taken at once, from any thread, before any await, so whoever starts a
/// load owns the newest number from its first instruction on. An event
/// carries its load's number (`TrackInfo.load`); it is old news when that
/// is not `latest`, which is one comparison.
public final class LoadNumbers: Sendable {
    private let counter = Atomic<Int>(0)

    public init() {}

    /// A new load's number: newer than every one taken before.
    public func take() -> Int { counter.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue }

    /// The newest number taken.
    public var latest: Int { counter.load(ordering: .sequentiallyConsistent) }

    /// Whether `load` is the newest load: false once another was taken.
    public func isLatest(_ load: Int) -> Bool { load == latest }
}
