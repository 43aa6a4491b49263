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

    private(set) var feed = Feed()
    private var format = Format.undecided
    /// Resolves links against the innermost `xml:base`, else the feed's URL.
    private var urls: URLResolver
    /// The resolvers that `xml:base` attributes replaced, with the depth of
    /// the element that replaced each.
    private var outerBases: [(depth: Int, resolver: URLResolver)] = []
    /// (prefix, local name) by `XMLName.id`: what `shortName` made of each name.
    private var shortNames: [(String, String)?] = []
    /// (prefix, name) of each open element.
    private var stack: [(String, String)] = []
    /// Character data of the innermost open element, as bytes.
    private var text: [UInt8] = []
    private var draft: EpisodeDraft?
    private var channelDescription: String?
    private var channelSummary: String?
    private var channelImage: String?
    private var currentCategory: Int?
    private var atomAuthorName: String?
    private var pendingAttributes: [XMLAttribute] = []
    /// Whether the element just started began an episode.
    private var startedDraft = false

    init(baseURL: URL?) {
        urls = URLResolver(base: baseURL)
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

    mutating func startElement(_ name: XMLName, attributes: [XMLAttribute]) {
        startedDraft = false
        let (prefix, local) = shortName(name)
        if stack.isEmpty { decideFormat(prefix: prefix, name: local) }
        stack.append((prefix, local))
        text.removeAll(keepingCapacity: true)
        if let xmlBase = attributes.first(where: { $0.name == "base" && $0.namespace == Namespace.xml })?.value,
           let base = urls.resolve(xmlBase).flatMap(URL.init(string:)) {
            outerBases.append((depth: stack.count, urls))
            urls = URLResolver(base: base)
        }
        guard case .rss = format else {
            if case .atom = format { startAtom(prefix, local, attributes) }
            return
        }
        startRSS(prefix, local, attributes)
    }

    mutating func endElement() {
        guard let (prefix, local) = stack.last else { return }
        defer {
            if outerBases.last?.depth == stack.count, let outer = outerBases.popLast() { urls = outer.resolver }
            stack.removeLast()
        }
        let value = String(decoding: text, as: UTF8.self)
        text.removeAll(keepingCapacity: true)
        switch format {
        case .rss: endRSS(prefix, local, value)
        case .atom: endAtom(prefix, local, value)
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
        text.append(contentsOf: bytes)
    }

    /// Finishes the feed after the last event.
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
        return feed
    }

    /// The namespace's short name ("itunes", "podcast", … or "" for none)
    /// and the local name, the pair the builder switches on.
    private mutating func shortName(_ name: XMLName) -> (String, String) {
        if name.id < shortNames.count, let known = shortNames[name.id] { return known }
        var prefix = Namespace.prefix(of: name.namespace)
        if name.namespace == nil, let declared = name.prefix { prefix = declared.lowercased() }  // an undeclared prefix such as itunes:
        if shortNames.count <= name.id { shortNames += Array(repeating: nil, count: name.id + 1 - shortNames.count) }
        shortNames[name.id] = (prefix, name.local)
        return (prefix, name.local)
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
    private var parent: (String, String)? { stack.count >= 2 ? stack[stack.count - 2] : nil }

    private static func attribute(_ attributes: [XMLAttribute], _ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    // MARK: - RSS

    private mutating func startRSS(_ prefix: String, _ local: String, _ attributes: [XMLAttribute]) {
        switch (prefix, local) {
        case ("", "item"):
            draft = EpisodeDraft()
            startedDraft = true
        case ("", "enclosure") where draft != nil:
            addEnclosure(url: Self.attribute(attributes, "url"), type: Self.attribute(attributes, "type"), length: Self.attribute(attributes, "length"))
        case ("media", "content") where draft != nil:
            addEnclosure(url: Self.attribute(attributes, "url"), type: Self.attribute(attributes, "type"), length: Self.attribute(attributes, "fileSize"))
        case ("", "guid") where draft != nil:
            draft?.guidIsPermaLink = Self.attribute(attributes, "isPermaLink")?.lowercased() != "false"
        default:
            startCommon(prefix, local, attributes)
        }
    }

    private mutating func endRSS(_ prefix: String, _ local: String, _ value: String) {
        if draft != nil {
            switch (prefix, local) {
            case ("", "item"): finishEpisode()
            case ("", "title"): draft?.episode.title = TextBytes.squash(value)
            case ("", "link"): draft?.episode.link = urls.resolve(value)
            case ("", "guid"): draft?.guid = FeedValues.nonEmpty(value)
            case ("", "description"): keepDescription(.description, value)
            case ("", "pubdate"), ("", "pubDate"):
                if draft?.episode.published == nil { draft?.episode.published = FeedDates.parse(value) }
            case ("", "author"):
                if draft?.episode.author == nil { draft?.episode.author = FeedValues.nonEmpty(value) }
            default: endCommon(prefix, local, value)
            }
            return
        }
        guard parent?.1 == "channel" || parent?.1 == "image" else {
            endCommon(prefix, local, value)
            return
        }
        switch (prefix, local, parent?.1 ?? "") {
        case ("", "title", "channel"): if feed.title.isEmpty { feed.title = value }
        case ("", "link", "channel"): if feed.link == nil { feed.link = urls.resolve(value) }
        case ("", "description", "channel"): channelDescription = FeedValues.nonEmpty(value)
        case ("", "language", "channel"): feed.language = FeedValues.nonEmpty(value)
        case ("", "url", "image"): channelImage = urls.resolve(value)
        default: endCommon(prefix, local, value)
        }
    }

    // MARK: - Atom

    private mutating func startAtom(_ prefix: String, _ local: String, _ attributes: [XMLAttribute]) {
        guard prefix == "atom" else { return startCommon(prefix, local, attributes) }
        switch local {
        case "entry":
            draft = EpisodeDraft()
            startedDraft = true
        case "link":
            let rel = Self.attribute(attributes, "rel") ?? "alternate"
            let href = Self.attribute(attributes, "href")
            if rel == "enclosure", draft != nil {
                addEnclosure(url: href, type: Self.attribute(attributes, "type"), length: Self.attribute(attributes, "length"))
            } else if rel == "alternate" {
                if draft != nil {
                    if draft?.episode.link == nil { draft?.episode.link = urls.resolve(href) }
                } else if feed.link == nil {
                    feed.link = urls.resolve(href)
                }
            }
        case "content", "summary":
            pendingAttributes = attributes
        default:
            break
        }
    }

    private mutating func endAtom(_ prefix: String, _ local: String, _ value: String) {
        guard prefix == "atom" else { return endCommon(prefix, local, value) }
        let type = Self.attribute(pendingAttributes, "type") ?? "text"
        if draft != nil {
            switch local {
            case "entry": finishEpisode()
            case "title": draft?.episode.title = TextBytes.squash(value)
            case "id": draft?.guid = FeedValues.nonEmpty(value)
            case "content": keepDescription(.content, value, html: type.contains("html"))
            case "summary": keepDescription(.atomSummary, value, html: type.contains("html"))
            case "published": draft?.episode.published = FeedDates.parse(value)
            case "updated": if draft?.episode.published == nil { draft?.episode.published = FeedDates.parse(value) }
            case "name" where parent?.1 == "author": draft?.episode.author = FeedValues.nonEmpty(value)
            default: break
            }
            return
        }
        switch local {
        case "title" where parent?.1 == "feed": if feed.title.isEmpty { feed.title = value }
        case "subtitle": channelDescription = FeedValues.nonEmpty(value)
        case "logo", "icon": if channelImage == nil || local == "logo" { channelImage = urls.resolve(value) }
        case "name" where parent?.1 == "author": atomAuthorName = FeedValues.nonEmpty(value)
        case "feed": if feed.author == nil { feed.author = atomAuthorName }
        default: break
        }
    }

    // MARK: - Namespaced elements shared by RSS and Atom

    private mutating func startCommon(_ prefix: String, _ local: String, _ attributes: [XMLAttribute]) {
        switch (prefix, local) {
        case ("itunes", "image"):
            let href = urls.resolve(Self.attribute(attributes, "href"))
            if var current = draft {
                current.episode.artworkURL = current.episode.artworkURL ?? href
                draft = current
            } else {
                feed.artworkURL = feed.artworkURL ?? href
            }
        case ("media", "thumbnail") where draft != nil:
            if var current = draft, current.episode.artworkURL == nil {
                current.episode.artworkURL = urls.resolve(Self.attribute(attributes, "url"))
                draft = current
            }
        case ("itunes", "category") where draft == nil:
            let name = FeedValues.nonEmpty(Self.attribute(attributes, "text")) ?? ""  // "" keeps a nameless first level
            if parent?.0 == "itunes", parent?.1 == "category", let current = currentCategory {
                feed.categories[current].append(name)
            } else {
                feed.categories.append([name])
                currentCategory = feed.categories.count - 1
            }
        case ("podcast", "funding") where draft == nil:
            feed.fundingURL = feed.fundingURL ?? urls.resolve(Self.attribute(attributes, "url"))
        case ("podcast", "chapters") where draft != nil:
            draft?.episode.chaptersURL = urls.resolve(Self.attribute(attributes, "url"))
        case ("podcast", "transcript") where draft != nil:
            if draft?.episode.transcriptURL == nil { draft?.episode.transcriptURL = urls.resolve(Self.attribute(attributes, "url")) }
        case ("podcast", "person"), ("podcast", "season"), ("podcast", "episode"):
            pendingAttributes = attributes
        case ("psc", "chapter") where draft != nil:
            guard let start = Self.attribute(attributes, "start").flatMap(FeedValues.duration) else { return }
            draft?.episode.chapters.append(Chapter(
                start: start, title: TextBytes.squash(Self.attribute(attributes, "title") ?? ""),
                url: urls.resolve(Self.attribute(attributes, "href")), image: urls.resolve(Self.attribute(attributes, "image"))))
        default:
            break
        }
    }

    private mutating func endCommon(_ prefix: String, _ local: String, _ value: String) {
        if draft != nil {
            switch (prefix, local) {
            case ("content", "encoded"): keepDescription(.content, value, html: true)
            case ("itunes", "summary"): keepDescription(.summary, value)
            case ("media", "description"): keepDescription(.media, value)
            case ("dc", "date"):
                if draft?.episode.published == nil { draft?.episode.published = FeedDates.parse(value) }
            case ("dc", "creator"):
                if draft?.episode.author == nil { draft?.episode.author = FeedValues.nonEmpty(value) }
            case ("itunes", "duration"): draft?.episode.duration = FeedValues.duration(value)
            case ("itunes", "season"), ("podcast", "season"):
                if draft?.episode.season == nil { draft?.episode.season = FeedValues.integer(value) }
            case ("itunes", "episode"), ("podcast", "episode"):
                // An episode number is a positive integer; "-1", "0" or "2a" are no number.
                if draft?.episode.number == nil { draft?.episode.number = FeedValues.integer(value).flatMap { $0 > 0 ? $0 : nil } }
            case ("itunes", "episodeType"):
                let kind = TextBytes.trim(value).lowercased()
                if ["full", "trailer", "bonus"].contains(kind) { draft?.episode.episodeType = kind }
            case ("itunes", "explicit"): draft?.episode.explicit = FeedValues.flag(value)
            case ("itunes", "author"):
                if let author = FeedValues.nonEmpty(value) { draft?.episode.author = author }
            case ("podcast", "person"):
                guard let name = FeedValues.nonEmpty(value) else { return }
                draft?.episode.persons.append(Person(
                    name: TextBytes.squash(name), role: FeedValues.nonEmpty(Self.attribute(pendingAttributes, "role"))?.lowercased(),
                    group: FeedValues.nonEmpty(Self.attribute(pendingAttributes, "group"))?.lowercased(),
                    url: urls.resolve(Self.attribute(pendingAttributes, "href")), image: urls.resolve(Self.attribute(pendingAttributes, "img"))))
            default: break
            }
            return
        }
        switch (prefix, local) {
        case ("itunes", "author"): feed.author = FeedValues.nonEmpty(value) ?? feed.author
        case ("itunes", "summary"): channelSummary = FeedValues.nonEmpty(value)
        case ("itunes", "type"):
            let kind = TextBytes.trim(value).lowercased()
            if kind == "episodic" || kind == "serial" { feed.type = kind }
        case ("itunes", "explicit"): feed.explicit = FeedValues.flag(value)
        case ("itunes", "new-feed-url"): feed.newFeedURL = urls.resolve(value)
        case ("", "newLocation") where parent?.1 == "redirect": feed.newFeedURL = feed.newFeedURL ?? urls.resolve(value)
        case ("podcast", "locked"): feed.locked = FeedValues.flag(value)
        case ("itunes", "category") where parent?.1 != "category": currentCategory = nil
        default: break
        }
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
        guard let finished = draft else { return }
        draft = nil
        var episode = finished.episode
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
