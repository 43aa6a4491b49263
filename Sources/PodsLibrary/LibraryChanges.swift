/// What one or more commits changed in the library, as its followers hear
/// it (the D-Bus signals, the MPRIS track list and playlists, the refresh
/// scheduler, the player's `Next`/`Previous`). Changes posted while the
/// followers are busy arrive merged, as one value.
///
/// Bounded: ids are kept up to `idLimit` per kind; past it a kind is
/// `everything` (a follower then reads the whole list again).
public struct LibraryChanges: Sendable, Equatable {
    /// Podcasts were added, removed, renamed or refreshed.
    public var podcasts = false
    /// Podcasts whose episodes were added, removed or rewritten by their feed.
    public var episodes = IDSet()
    /// Episodes whose played mark or currently-playing flag changed.
    public var status = IDSet()
    /// The queue's content or order.
    public var queue = false
    /// Episodes whose download began, progressed, ended or was deleted.
    public var downloads = IDSet()
    /// Cached artwork arrived (playlist icons may change; clients are not told).
    public var artwork = false
    /// A playlist was made, changed or deleted, or another became the active one.
    public var playlists = false
    /// A bookmark was taken, edited or deleted.
    public var bookmarks = false
    /// A podcast's own settings (`pods config --podcast`) changed.
    public var podcastSettings = false

    public init(podcasts: Bool = false, episodes: IDSet = IDSet(), status: IDSet = IDSet(), queue: Bool = false,
                downloads: IDSet = IDSet(), artwork: Bool = false, playlists: Bool = false, bookmarks: Bool = false,
                podcastSettings: Bool = false) {
        self.playlists = playlists
        self.bookmarks = bookmarks
        self.podcastSettings = podcastSettings
        self.podcasts = podcasts
        self.episodes = episodes
        self.status = status
        self.queue = queue
        self.downloads = downloads
        self.artwork = artwork
    }

    /// The most ids a kind keeps before it becomes `everything`.
    public static let idLimit = 256

    /// Nothing changed.
    public var isEmpty: Bool { self == LibraryChanges() }

    /// What the library's lists show changed (not only downloads or artwork).
    public var touchesListening: Bool { podcasts || queue || playlists || !episodes.isEmpty || !status.isEmpty }

    /// Adds what `other` says changed.
    public mutating func merge(_ other: LibraryChanges) {
        podcasts = podcasts || other.podcasts
        episodes.merge(other.episodes)
        status.merge(other.status)
        queue = queue || other.queue
        downloads.merge(other.downloads)
        artwork = artwork || other.artwork
        playlists = playlists || other.playlists
        bookmarks = bookmarks || other.bookmarks
        podcastSettings = podcastSettings || other.podcastSettings
    }

    /// Ids of one kind of change: a few named, or every one.
    public enum IDSet: Sendable, Equatable {
        case some(Set<Int64>)
        case everything

        public init(_ ids: some Sequence<Int64> = []) {
            let set = Set(ids)
            self = set.count > LibraryChanges.idLimit ? .everything : .some(set)
        }

        public var isEmpty: Bool { self == .some([]) }

        /// The ids, or nil for every one.
        public var ids: Set<Int64>? {
            if case .some(let ids) = self { return ids }
            return nil
        }

        public func contains(_ id: Int64) -> Bool { ids?.contains(id) ?? true }

        public mutating func merge(_ other: IDSet) {
            switch (self, other) {
            case (.some(let mine), .some(let theirs)): self = IDSet(mine.union(theirs))
            default: self = .everything
            }
        }
    }
}
