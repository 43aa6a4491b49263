/// An element as `FeedBuilder` sees it: which of the elements it reads
/// (by namespace and local name), and which of the parents it asks about
/// (by local name alone, in any namespace). Made once per distinct name
/// of a parse (`XMLName.id`), so the builder switches on small enums, not
/// on strings, for each of a feed's hundreds of thousands of elements.
struct FeedElement: Equatable {
    /// The elements the builder reads; `other` for every other.
    enum Tag: UInt8 {
        case other
        // RSS (no namespace, or RSS 1.0's and 0.9's)
        case item, enclosure, guid, title, link, description, pubDate, author, language, url, newLocation
        // Atom
        case atomFeed, atomEntry, atomLink, atomContent, atomSummary, atomTitle, atomID, atomPublished, atomUpdated
        case atomName, atomSubtitle, atomLogo, atomIcon
        // iTunes
        case itunesImage, itunesCategory, itunesAuthor, itunesSummary, itunesType, itunesExplicit, itunesNewFeedURL
        case itunesDuration, itunesSeason, itunesEpisode, itunesEpisodeType
        // Podcasting 2.0
        case podcastFunding, podcastChapters, podcastTranscript, podcastPerson, podcastSeason, podcastEpisode, podcastLocked
        case podcastGuid, podcastMedium, podcastUpdateFrequency, podcastTrailer, podcastRemoteItem, podcastSoundbite
        case podcastAlternateEnclosure, podcastSource
        // Media RSS, content:encoded, Podlove chapters, Dublin Core
        case mediaContent, mediaThumbnail, mediaDescription, contentEncoded, pscChapter, dcDate, dcCreator
    }

    /// The local names the builder asks of an element's parent.
    enum Local: UInt8 {
        case other, channel, image, author, category, feed, redirect, podroll
    }

    let tag: Tag
    let local: Local

    static let other = FeedElement(tag: .other, local: .other)

    init(tag: Tag, local: Local) {
        self.tag = tag
        self.local = local
    }

    /// The element named `local` in the namespace whose short name is
    /// `prefix` (`Namespace.prefix(of:)`: "" for RSS, "itunes", "atom", …).
    init(prefix: String, local name: String) {
        local = switch name {
        case "channel": .channel
        case "image": .image
        case "author": .author
        case "category": .category
        case "feed": .feed
        case "redirect": .redirect
        case "podroll": .podroll
        default: .other
        }
        tag = Self.tag(prefix, name)
    }

    private static func tag(_ prefix: String, _ name: String) -> Tag {
        switch (prefix, name) {
        case ("", "item"): .item
        case ("", "enclosure"): .enclosure
        case ("", "guid"): .guid
        case ("", "title"): .title
        case ("", "link"): .link
        case ("", "description"): .description
        case ("", "pubDate"), ("", "pubdate"): .pubDate
        case ("", "author"): .author
        case ("", "language"): .language
        case ("", "url"): .url
        case ("", "newLocation"): .newLocation
        case ("atom", "feed"): .atomFeed
        case ("atom", "entry"): .atomEntry
        case ("atom", "link"): .atomLink
        case ("atom", "content"): .atomContent
        case ("atom", "summary"): .atomSummary
        case ("atom", "title"): .atomTitle
        case ("atom", "id"): .atomID
        case ("atom", "published"): .atomPublished
        case ("atom", "updated"): .atomUpdated
        case ("atom", "name"): .atomName
        case ("atom", "subtitle"): .atomSubtitle
        case ("atom", "logo"): .atomLogo
        case ("atom", "icon"): .atomIcon
        case ("itunes", "image"): .itunesImage
        case ("itunes", "category"): .itunesCategory
        case ("itunes", "author"): .itunesAuthor
        case ("itunes", "summary"): .itunesSummary
        case ("itunes", "type"): .itunesType
        case ("itunes", "explicit"): .itunesExplicit
        case ("itunes", "new-feed-url"): .itunesNewFeedURL
        case ("itunes", "duration"): .itunesDuration
        case ("itunes", "season"): .itunesSeason
        case ("itunes", "episode"): .itunesEpisode
        case ("itunes", "episodeType"): .itunesEpisodeType
        case ("podcast", "funding"): .podcastFunding
        case ("podcast", "chapters"): .podcastChapters
        case ("podcast", "transcript"): .podcastTranscript
        case ("podcast", "person"): .podcastPerson
        case ("podcast", "season"): .podcastSeason
        case ("podcast", "episode"): .podcastEpisode
        case ("podcast", "locked"): .podcastLocked
        case ("podcast", "guid"): .podcastGuid
        case ("podcast", "medium"): .podcastMedium
        case ("podcast", "updateFrequency"): .podcastUpdateFrequency
        case ("podcast", "trailer"): .podcastTrailer
        case ("podcast", "remoteItem"): .podcastRemoteItem
        case ("podcast", "soundbite"): .podcastSoundbite
        case ("podcast", "alternateEnclosure"): .podcastAlternateEnclosure
        case ("podcast", "source"): .podcastSource
        case ("media", "content"): .mediaContent
        case ("media", "thumbnail"): .mediaThumbnail
        case ("media", "description"): .mediaDescription
        case ("content", "encoded"): .contentEncoded
        case ("psc", "chapter"): .pscChapter
        case ("dc", "date"): .dcDate
        case ("dc", "creator"): .dcCreator
        default: .other
        }
    }
}
