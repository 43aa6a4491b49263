import Foundation

/// Builds a `Feed` from streaming XML events: RSS 2.0 and 0.9x, iTunes,
/// Podcasting 2.0, Atom, Media RSS, content:encoded and Podlove chapters.
struct FeedBuilder {
    private enum Format {
        case undecided, rss, atom, notAFeed(String)
        var isRSS: Bool { if case .rss = self { true } else { false } }
    }

    /// Text sources of an episode's description, kept until the item ends.
    private struct EpisodeDraft {
        var episode = Episode()
        var guid: String?
        var guidIsPermaLink = false
        var fingerprint: ItemFingerprint?
        /// How well the transcript chosen so far suits (`TranscriptChoice`).
        var transcriptRank: Int?
        /// The first text of each source, and whether it is HTML.
        var descriptions = [(text: String, isHTML: Bool)?](repeating: nil, count: DescriptionSource.allCases.count)

        subscript(_ source: DescriptionSource) -> (text: String, isHTML: Bool)? {
            get { descriptions[source.rawValue] }
            set { descriptions[source.rawValue] = newValue }
        }
    }

    /// Where an episode's description can come from.
    private enum DescriptionSource: Int, CaseIterable {
        case description, content, summary, media, atomSummary
    }

    private var feed = Feed()
    private var format = Format.undecided
    /// Resolves links against the innermost `xml:base`, else the feed's URL.
    private var urls: URLResolver
    /// The resolvers that `xml:base` attributes replaced, with the depth of
    /// the element that replaced each.
    private var outerBases: [(depth: Int, resolver: URLResolver)] = []
    /// What each name is to the builder, by `XMLName.id`.
    private var elements: [FeedElement?] = []
    /// The open elements, innermost last.
    private var stack: [FeedElement] = []
    /// Character data of the innermost open element, as bytes.
    private var text: [UInt8] = []
    private var draft: EpisodeDraft?
    private var channelDescription: String?
    private var channelSummary: String?
    private var channelImage: String?
    private var currentCategory: Int?
    private var atomAuthorName: String?
    private var pendingAttributes: [XMLAttribute] = []
    /// The `podcast:alternateEnclosure` open, until its first web `podcast:source`.
    private var pendingAlternate: Enclosure?
    /// Whether the element just started began an episode.
    private var startedDraft = false

    init(baseURL: URL?) {
        urls = URLResolver(base: baseURL, policy: URLPolicy(documentURL: baseURL))
    }

    /// Why the document is not a feed, if it is not.
    var notAFeedReason: String? {
        if case .notAFeed(let reason) = format { return reason }
        if case .undecided = format { return "not a podcast feed: no XML element in the document" }
        return nil
    }

    /// Whether any element was seen (false for text that is not XML).
    var sawElement: Bool {
        if case .undecided = format { return false }
        return true
    }

    // MARK: - Events

    mutating func startElement(_ name: XMLName, attributes: XMLAttributes) {
        startedDraft = false
        let element = element(name)
        if stack.isEmpty { decideFormat(prefix: Self.prefix(name), name: name.local) }
        stack.append(element)
        text.removeAll(keepingCapacity: true)
        if attributes.count > 0, let xmlBase = attributes.value("base", namespace: Namespace.xml),
           let base = urls.resolve(xmlBase).flatMap(URL.init(string:)) {
            outerBases.append((depth: stack.count, urls))
            urls = URLResolver(base: base, policy: urls.policy)
        }
        switch format {
        case .rss: startRSS(element.tag, attributes)
        case .atom: startAtom(element.tag, attributes)
        default: break
        }
    }

    mutating func endElement() {
        guard let element = stack.last else { return }
        defer {
            if outerBases.last?.depth == stack.count, let outer = outerBases.popLast() { urls = outer.resolver }
            stack.removeLast()
        }
        guard element.tag != .other else { return }  // read by nothing: its text is not even kept
        let value = String(decoding: text, as: UTF8.self)
        text.removeAll(keepingCapacity: true)
        switch format {
        case .rss: endRSS(element.tag, value)
        case .atom: endAtom(element.tag, value)
        default: break
        }
    }

    /// The item whose start was just handed over is the document's
    /// `ordinal`th (kept when that element started an episode; its
    /// fingerprint is filled in when the document ends).
    mutating func markItem(_ ordinal: Int?) {
        guard startedDraft, let ordinal else { return }
        draft?.fingerprint = ItemFingerprint(ordinal: ordinal, value: 0)
    }

    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        // Text is read at the end of its own element, and cleared by a child's
        // start and end: an element the builder does not read never needs it.
        guard let innermost = stack.last, innermost.tag != .other else { return }
        text.append(contentsOf: bytes)
    }

    /// Finishes the feed after the last event and hands it over: the
    /// builder keeps none of it, so the caller's changes to its episodes
    /// copy nothing.
    mutating func finish() -> Feed {
        if feed.description == nil { feed.description = channelDescription ?? channelSummary }
        if let description = feed.description, HTMLText.looksLikeHTML(description) {
            feed.descriptionHTML = description
            feed.description = HTMLText.plainText(description)
        } else {
            feed.description = feed.description.map(TextBytes.squash)
        }
        feed.artworkURL = feed.artworkURL ?? channelImage
        feed.title = TextBytes.squash(feed.title)
        var finished = Feed()
        swap(&finished, &feed)
        return finished
    }

    /// What the builder makes of `name`, worked out at its first appearance.
    private mutating func element(_ name: XMLName) -> FeedElement {
        if name.id < elements.count, let known = elements[name.id] { return known }
        let made = FeedElement(prefix: Self.prefix(name), local: name.local)
        if elements.count <= name.id { elements += Array(repeating: nil, count: name.id + 1 - elements.count) }
        elements[name.id] = made
        return made
    }

    /// The namespace's short name: "itunes", "podcast", … or "" for none.
    private static func prefix(_ name: XMLName) -> String {
        if name.namespace == nil, let declared = name.prefix { return declared.lowercased() }  // an undeclared prefix such as itunes:
        return Namespace.prefix(of: name.namespace)
    }

    private mutating func decideFormat(prefix: String, name: String) {
        switch (prefix, name.lowercased()) {
        case (_, "rss"), (_, "rdf"): format = .rss
        case ("atom", "feed"): format = .atom
        case (_, "html"): format = .notAFeed("not a podcast feed: an HTML page")
        default: format = .notAFeed("not a podcast feed: the root element is <\(name)>")
        }
    }

    /// The parent of the element being started or ended (the innermost
    /// open element is the current one in both).
    private var parent: FeedElement? { stack.count >= 2 ? stack[stack.count - 2] : nil }

    /// The first kept attribute whose local name is `name`.
    private static func attribute(_ attributes: [XMLAttribute], _ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    // MARK: - RSS

    private mutating func startRSS(_ tag: FeedElement.Tag, _ attributes: XMLAttributes) {
        switch tag {
        case .item:
            draft = EpisodeDraft()
            startedDraft = true
        case .enclosure where draft != nil:
            addEnclosure(url: attributes["url"], type: attributes["type"], length: attributes["length"])
        case .mediaContent where draft != nil:
            addEnclosure(url: attributes["url"], type: attributes["type"], length: attributes["fileSize"])
        case .guid where draft != nil:
            draft?.guidIsPermaLink = attributes["isPermaLink"]?.lowercased() != "false"
        default:
            startCommon(tag, attributes)
        }
    }

    private mutating func endRSS(_ tag: FeedElement.Tag, _ value: String) {
        if draft != nil {
            switch tag {
            case .item: finishEpisode()
            case .title: draft?.episode.title = TextBytes.squash(value)
            case .link: draft?.episode.link = urls.resolve(value)
            case .guid: draft?.guid = FeedValues.nonEmpty(value)
            case .description: keepDescription(.description, value)
            case .pubDate:
                if draft?.episode.published == nil { draft?.episode.published = FeedDates.parse(value) }
            case .author:
                if draft?.episode.author == nil { draft?.episode.author = FeedValues.nonEmpty(value) }
            default: endCommon(tag, value)
            }
            return
        }
        switch (tag, parent?.local) {
        case (.title, .channel): if feed.title.isEmpty { feed.title = value }
        case (.link, .channel): if feed.link == nil { feed.link = urls.resolve(value) }
        case (.description, .channel): channelDescription = FeedValues.nonEmpty(value)
        case (.language, .channel): feed.language = FeedValues.nonEmpty(value)
        case (.url, .image): channelImage = urls.resolve(value)
        default: endCommon(tag, value)
        }
    }

    // MARK: - Atom

    private mutating func startAtom(_ tag: FeedElement.Tag, _ attributes: XMLAttributes) {
        switch tag {
        case .atomEntry:
            draft = EpisodeDraft()
            startedDraft = true
        case .atomLink:
            let rel = attributes["rel"] ?? "alternate"
            let href = attributes["href"]
            if rel == "enclosure", draft != nil {
                addEnclosure(url: href, type: attributes["type"], length: attributes["length"])
            } else if rel == "alternate" {
                if draft != nil {
                    if draft?.episode.link == nil { draft?.episode.link = urls.resolve(href) }
                } else if feed.link == nil {
                    feed.link = urls.resolve(href)
                }
            }
        case .atomContent, .atomSummary:
            pendingAttributes = attributes.all
        default:
            startCommon(tag, attributes)
        }
    }

    private mutating func endAtom(_ tag: FeedElement.Tag, _ value: String) {
        if draft != nil {
            let html = tag == .atomContent || tag == .atomSummary ? Self.attribute(pendingAttributes, "type")?.contains("html") == true : false
            switch tag {
            case .atomEntry: finishEpisode()
            case .atomTitle: draft?.episode.title = TextBytes.squash(value)
            case .atomID: draft?.guid = FeedValues.nonEmpty(value)
            case .atomContent: keepDescription(.content, value, html: html)
            case .atomSummary: keepDescription(.atomSummary, value, html: html)
            case .atomPublished: draft?.episode.published = FeedDates.parse(value)
            case .atomUpdated: if draft?.episode.published == nil { draft?.episode.published = FeedDates.parse(value) }
            case .atomName where parent?.local == .author: draft?.episode.author = FeedValues.nonEmpty(value)
            default: endCommon(tag, value)
            }
            return
        }
        switch tag {
        case .atomTitle where parent?.local == .feed: if feed.title.isEmpty { feed.title = value }
        case .atomSubtitle: channelDescription = FeedValues.nonEmpty(value)
        case .atomLogo: channelImage = urls.resolve(value)
        case .atomIcon: if channelImage == nil { channelImage = urls.resolve(value) }
        case .atomName where parent?.local == .author: atomAuthorName = FeedValues.nonEmpty(value)
        case .atomFeed: if feed.author == nil { feed.author = atomAuthorName }
        default: endCommon(tag, value)
        }
    }

    // MARK: - Namespaced elements shared by RSS and Atom

    private mutating func startCommon(_ tag: FeedElement.Tag, _ attributes: XMLAttributes) {
        switch tag {
        case .itunesImage:
            let href = urls.resolve(attributes["href"])
            if draft != nil {
                if draft?.episode.artworkURL == nil { draft?.episode.artworkURL = href }
            } else {
                feed.artworkURL = feed.artworkURL ?? href
            }
        case .mediaThumbnail where draft != nil:
            if draft?.episode.artworkURL == nil { draft?.episode.artworkURL = urls.resolve(attributes["url"]) }
        case .itunesCategory where draft == nil:
            let name = FeedValues.nonEmpty(attributes["text"]) ?? ""  // "" keeps a nameless first level
            if parent?.tag == .itunesCategory, let current = currentCategory {
                feed.categories[current].append(name)
            } else {
                feed.categories.append([name])
                currentCategory = feed.categories.count - 1
            }
        case .podcastAlternateEnclosure where draft != nil:
            pendingAlternate = Enclosure(url: "", type: FeedValues.nonEmpty(attributes["type"]),
                                         length: attributes["length"].flatMap(FeedValues.integer).flatMap { $0 > 0 ? $0 : nil },
                                         bitrate: attributes["bitrate"].flatMap(FeedValues.bitrate),
                                         title: FeedValues.nonEmpty(attributes["title"]).map(TextBytes.squash))
        case .podcastSource where pendingAlternate?.url.isEmpty == true:
            // The first source a web client can fetch (not an ipfs: or magnet: one).
            if let uri = urls.resolve(attributes["uri"]), uri.hasPrefix("http:") || uri.hasPrefix("https:") || urls.policy.isLocal {
                pendingAlternate?.url = uri
            }
        case .podcastRemoteItem where draft == nil && parent?.local == .podroll:
            guard feed.details.podroll.count < ChannelDetails.listLimit, let feedGuid = FeedValues.nonEmpty(attributes["feedGuid"]) else { return }
            feed.details.podroll.append(RemoteItem(
                feedGuid: feedGuid, feedURL: urls.resolve(attributes["feedUrl"]), itemGuid: FeedValues.nonEmpty(attributes["itemGuid"]),
                medium: FeedValues.nonEmpty(attributes["medium"]).map { $0.lowercased() }.flatMap { ChannelDetails.media.contains($0) ? $0 : nil },
                title: FeedValues.nonEmpty(attributes["title"]).map(TextBytes.squash)))
        case .podcastChapters where draft != nil:
            draft?.episode.chaptersURL = urls.resolve(attributes["url"])
        case .podcastTranscript where draft != nil:
            guard let url = urls.resolve(attributes["url"]) else { return }
            let rank = TranscriptChoice.rank(type: attributes["type"], language: attributes["language"], rel: attributes["rel"],
                                             podcastLanguage: feed.language)
            if rank > draft?.transcriptRank ?? Int.min {
                draft?.episode.transcriptURL = url
                draft?.transcriptRank = rank
            }
        case .podcastPerson, .podcastSeason, .podcastEpisode, .podcastFunding, .podcastTrailer, .podcastSoundbite, .podcastUpdateFrequency:
            pendingAttributes = attributes.all
        case .pscChapter where draft != nil:
            guard let start = attributes["start"].flatMap(FeedValues.duration) else { return }
            draft?.episode.chapters.append(Chapter(
                start: start, title: TextBytes.squash(attributes["title"] ?? ""),
                url: urls.resolve(attributes["href"]), image: urls.resolve(attributes["image"])))
        default:
            break
        }
    }

    private mutating func endCommon(_ tag: FeedElement.Tag, _ value: String) {
        if draft != nil {
            switch tag {
            case .contentEncoded: keepDescription(.content, value, html: true)
            case .itunesSummary: keepDescription(.summary, value)
            case .mediaDescription: keepDescription(.media, value)
            case .dcDate:
                if draft?.episode.published == nil { draft?.episode.published = FeedDates.parse(value) }
            case .dcCreator:
                if draft?.episode.author == nil { draft?.episode.author = FeedValues.nonEmpty(value) }
            case .itunesDuration: draft?.episode.duration = FeedValues.duration(value)
            case .itunesSeason:
                if draft?.episode.season == nil { draft?.episode.season = FeedValues.integer(value) }
            case .podcastSeason:
                if draft?.episode.season == nil { draft?.episode.season = FeedValues.integer(value) }
                if draft?.episode.seasonName == nil {
                    draft?.episode.seasonName = FeedValues.nonEmpty(Self.attribute(pendingAttributes, "name")).map(TextBytes.squash)
                }
            case .podcastSoundbite:
                guard draft?.episode.soundbites.count ?? 0 < ChannelDetails.listLimit,
                      let start = Self.attribute(pendingAttributes, "startTime").flatMap(FeedValues.duration),
                      let length = Self.attribute(pendingAttributes, "duration").flatMap(FeedValues.duration), length > 0 else { return }
                draft?.episode.soundbites.append(Soundbite(start: start, duration: length, title: FeedValues.nonEmpty(value).map(TextBytes.squash)))
            case .podcastAlternateEnclosure:
                guard let alternate = pendingAlternate.take(), !alternate.url.isEmpty,
                      draft?.episode.enclosures.count ?? 0 < ChannelDetails.listLimit else { return }
                guard var enclosures = draft?.episode.enclosures else { return }
                if let index = enclosures.firstIndex(where: { $0.url == alternate.url }) {
                    // The feed's own enclosure listed again as an alternate: its bitrate and name are kept.
                    enclosures[index].bitrate = enclosures[index].bitrate ?? alternate.bitrate
                    enclosures[index].title = enclosures[index].title ?? alternate.title
                } else {
                    enclosures.append(alternate)
                }
                draft?.episode.enclosures = enclosures
            case .itunesEpisode, .podcastEpisode:
                // An episode number is a positive integer; "-1", "0" or "2a" are no number.
                if draft?.episode.number == nil { draft?.episode.number = FeedValues.integer(value).flatMap { $0 > 0 ? $0 : nil } }
            case .itunesEpisodeType:
                let kind = TextBytes.trim(value).lowercased()
                if ["full", "trailer", "bonus"].contains(kind) { draft?.episode.episodeType = kind }
            case .itunesExplicit: draft?.episode.explicit = FeedValues.flag(value)
            case .itunesAuthor:
                if let author = FeedValues.nonEmpty(value) { draft?.episode.author = author }
            case .podcastPerson:
                guard let person = person(value) else { return }
                draft?.episode.persons.append(person)
            default: break
            }
            return
        }
        switch tag {
        case .itunesAuthor: feed.author = FeedValues.nonEmpty(value) ?? feed.author
        case .itunesSummary: channelSummary = FeedValues.nonEmpty(value)
        case .itunesType:
            let kind = TextBytes.trim(value).lowercased()
            if kind == "episodic" || kind == "serial" { feed.type = kind }
        case .itunesExplicit: feed.explicit = FeedValues.flag(value)
        case .itunesNewFeedURL: feed.newFeedURL = urls.resolve(value)
        case .newLocation where parent?.local == .redirect: feed.newFeedURL = feed.newFeedURL ?? urls.resolve(value)
        case .podcastLocked: feed.locked = FeedValues.flag(value)
        case .podcastGuid where atChannel:
            // A UUID is 36 characters; a guid of thousands is no identity to match feeds by.
            if let guid = FeedValues.nonEmpty(value), guid.utf8.count <= 100 { feed.details.guid = feed.details.guid ?? guid.lowercased() }
        case .podcastMedium where atChannel:
            let medium = TextBytes.trim(value).lowercased()
            if ChannelDetails.media.contains(medium) { feed.details.medium = feed.details.medium ?? medium }
        case .podcastUpdateFrequency where atChannel:
            feed.details.updateFrequency = UpdateFrequency(
                text: FeedValues.nonEmpty(value).map(TextBytes.squash), rule: FeedValues.nonEmpty(Self.attribute(pendingAttributes, "rrule")),
                complete: Self.attribute(pendingAttributes, "complete").flatMap(FeedValues.flag) ?? false)
        case .podcastFunding where atChannel:
            guard feed.details.funding.count < ChannelDetails.listLimit, let url = urls.resolve(Self.attribute(pendingAttributes, "url")) else { return }
            feed.details.funding.append(Funding(url: url, text: FeedValues.nonEmpty(value).map(TextBytes.squash)))
        case .podcastPerson where atChannel:
            guard feed.details.persons.count < ChannelDetails.listLimit, let person = person(value) else { return }
            feed.details.persons.append(person)
        case .podcastTrailer where atChannel:
            guard feed.details.trailers.count < ChannelDetails.listLimit, let url = urls.resolve(Self.attribute(pendingAttributes, "url")) else { return }
            let pending = pendingAttributes
            let attribute = { (name: String) in Self.attribute(pending, name) }
            feed.details.trailers.append(Trailer(
                url: url, title: TextBytes.squash(value), type: FeedValues.nonEmpty(attribute("type")),
                length: attribute("length").flatMap(FeedValues.integer).flatMap { $0 > 0 ? $0 : nil },
                published: attribute("pubdate").flatMap(FeedDates.parse),
                season: attribute("season").flatMap(FeedValues.integer).flatMap { $0 > 0 ? $0 : nil }))
        case .itunesCategory where parent?.local != .category: currentCategory = nil
        default: break
        }
    }

    /// Whether the element ending is the channel's own (an Atom feed's), not
    /// one of a `podcast:liveItem` or another container's.
    private var atChannel: Bool { parent?.local == .channel || parent?.local == .feed }

    /// A `podcast:person` ended with `value` as its name.
    private func person(_ value: String) -> Person? {
        guard let name = FeedValues.nonEmpty(value) else { return nil }
        return Person(name: TextBytes.squash(name), role: FeedValues.nonEmpty(Self.attribute(pendingAttributes, "role"))?.lowercased(),
                      group: FeedValues.nonEmpty(Self.attribute(pendingAttributes, "group"))?.lowercased(),
                      url: urls.resolve(Self.attribute(pendingAttributes, "href")), image: urls.resolve(Self.attribute(pendingAttributes, "img")))
    }

    // MARK: - Episodes

    private mutating func addEnclosure(url: String?, type: String?, length: String?) {
        guard let resolved = urls.resolve(url) else { return }
        let size = length.flatMap { FeedValues.integer($0) }.flatMap { $0 > 0 ? $0 : nil }
        draft?.episode.enclosures.append(Enclosure(url: resolved, type: FeedValues.nonEmpty(type), length: size))
    }

    private mutating func keepDescription(_ source: DescriptionSource, _ value: String, html: Bool = false) {
        guard draft?[source] == nil, let text = FeedValues.nonEmpty(value) else { return }
        draft?[source] = (text, html || HTMLText.looksLikeHTML(text))
    }

    private mutating func finishEpisode() {
        // Taken, not copied: a copy retains each of the episode's strings.
        guard var finished = draft.take() else { return }
        var episode = Episode()
        swap(&episode, &finished.episode)
        episode.fingerprint = finished.fingerprint
        // The guid stays as written: it is the episode's identity, and must
        // not change when the feed moves. A permalink guid is also the link.
        let guid = finished.guid
        if episode.link == nil, finished.guidIsPermaLink, format.isRSS, let guid { episode.link = urls.resolve(guid) }
        guard let identity = guid ?? episode.link ?? episode.enclosures.first?.url else { return }
        episode.guid = identity
        if episode.title.isEmpty, episode.enclosures.count == 1, let enclosure = episode.enclosures.first {
            episode.title = URL(string: enclosure.url)?.deletingPathExtension().lastPathComponent ?? ""
        }
        // HTML from the first source that has it; plain text from the first
        // plain source (else `description` reads the HTML when asked).
        // An Atom summary is the last resort: it is the short form of the content.
        func first(_ sources: [DescriptionSource], html: Bool) -> String? {
            sources.lazy.compactMap { finished[$0] }.first { $0.isHTML == html }?.text
        }
        let html = first([.content, .description, .summary, .media, .atomSummary], html: true)
        let plain = first([.description, .summary, .media, .content], html: false)
        episode.descriptionHTML = html
        episode.plainDescription = plain.map(TextBytes.squash)
            ?? (html == nil ? finished[.atomSummary].map { TextBytes.squash($0.text) } : nil)
        feed.episodes.append(episode)
    }
}
