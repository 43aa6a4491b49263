/// The namespaces a podcast feed uses, by URI.
enum Namespace {
    static let itunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"
    static let podcast = ["https://podcastindex.org/namespace/1.0",
                          "https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md"]
    static let atom = "http://www.w3.org/2005/Atom"
    static let media = "http://search.yahoo.com/mrss/"
    static let content = "http://purl.org/rss/1.0/modules/content/"
    static let psc = "http://podlove.org/simple-chapters"
    static let dublinCore = "http://purl.org/dc/elements/1.1/"
    static let xml = "http://www.w3.org/XML/1998/namespace"

    /// The short name a builder switches on: "itunes", "podcast", "atom", … or "" for none.
    static func prefix(of uri: String?) -> String {
        guard let uri else { return "" }
        switch uri {
        case itunes, "http://www.itunes.com/DTDs/Podcast-1.0.dtd", "https://www.itunes.com/dtds/podcast-1.0.dtd": return "itunes"
        case atom: return "atom"
        case media, "http://search.yahoo.com/mrss": return "media"
        case content: return "content"
        case psc: return "psc"
        case dublinCore: return "dc"
        case "http://purl.org/rss/1.0/", "http://my.netscape.com/rdf/simple/0.9/": return ""
        default: return podcast.contains(uri) || uri.lowercased().contains("podcastindex") ? "podcast" : "other"
        }
    }
}
