/// A podcast a directory found.
public struct DirectoryResult: Sendable, Equatable {
    public var title: String
    public var author: String?
    public var feedURL: String
    public var artworkURL: String?
    public var episodeCount: Int?
    /// `itunes` or `podcastindex`.
    public var source: String

    public init(title: String, author: String?, feedURL: String, artworkURL: String?, episodeCount: Int?, source: String) {
        self.title = title
        self.author = author
        self.feedURL = feedURL
        self.artworkURL = artworkURL
        self.episodeCount = episodeCount
        self.source = source
    }
}

/// Why a directory could not answer; one line.
public struct DirectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
