import Foundation
import PodsTestSupport

/// gPodder's workload of a real listener, made the same on every run:
/// 200 feeds (190 of 50–300 episodes, 10 of 1,000–3,000; about 53,000 in
/// all), each item with a 2 KB HTML description and every tag the parser
/// reads. `episodes` can grow a feed (new items at the top).
struct ScaleWorkload {
    struct Feed {
        let index: Int
        var episodes: Int
        var path: String { "/feeds/show-\(index).xml" }
    }

    private(set) var feeds: [Feed] = []

    init(seed: UInt64 = 0x9E37_79B9_7F4A_7C15, count: Int = 200, large: Int = 10) {
        var random = SplitMix64(state: seed)
        for index in 0..<count {
            let episodes = index % (count / large) == 0 ? 1000 + Int(random.next() % 2001) : 50 + Int(random.next() % 251)
            feeds.append(Feed(index: index, episodes: episodes))
        }
    }

    var episodeCount: Int { feeds.reduce(0) { $0 + $1.episodes } }

    /// Adds `count` newer episodes to the feed at `index`.
    mutating func grow(_ index: Int, by count: Int) { feeds[index].episodes += count }

    /// The feed's RSS: newest item first.
    func xml(_ feed: Feed) -> Data {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" \
            xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:podcast="https://podcastindex.org/namespace/1.0" \
            xmlns:psc="http://podlove.org/simple-chapters" xmlns:atom="http://www.w3.org/2005/Atom">
            <channel>
            <title>Scale Show \(feed.index)</title><link>https://show\(feed.index).example.org/</link>
            <description>A podcast about the number \(feed.index), made for benchmarks.</description>
            <language>en</language><itunes:author>Host \(feed.index)</itunes:author>
            <itunes:image href="https://show\(feed.index).example.org/art.jpg"/><itunes:type>episodic</itunes:type>
            <itunes:category text="Technology"><itunes:category text="Podcasting"/></itunes:category>
            <itunes:explicit>false</itunes:explicit><podcast:locked>no</podcast:locked>
            <podcast:funding url="https://show\(feed.index).example.org/support">Support</podcast:funding>

            """
        let base = 1_500_000_000
        for number in stride(from: feed.episodes, through: 1, by: -1) {
            // An item's date depends on its number only: new items leave the old ones as they were.
            let published = Date(timeIntervalSince1970: Double(base + number * 86_400 + feed.index * 60))
            out += item(show: feed.index, number: number, published: published)
        }
        out += "</channel>\n</rss>\n"
        return Data(out.utf8)
    }

    private func item(show: Int, number: Int, published: Date) -> String {
        let html = Self.description(show: show, number: number)
        let url = "https://cdn.example.org/show\(show)/episode-\(number).mp3"
        return """
            <item><title>Episode \(number): on the number \(show * 1000 + number)</title>
            <link>https://show\(show).example.org/\(number)</link><guid isPermaLink="false">show-\(show)-episode-\(number)</guid>
            <pubDate>\(Self.rfc822(published))</pubDate><author>host\(show)@example.org (Host \(show))</author>
            <description><![CDATA[\(html)]]></description>
            <itunes:summary>Episode \(number) of show \(show), in plain text, as iTunes summaries are.</itunes:summary>
            <enclosure url="\(url)" length="\(20_000_000 + number * 1000)" type="audio/mpeg"/>
            <itunes:duration>\(1800 + number % 1800)</itunes:duration><itunes:image href="https://show\(show).example.org/\(number).jpg"/>
            <itunes:season>\(1 + number / 100)</itunes:season><itunes:episode>\(number)</itunes:episode>
            <itunes:episodeType>full</itunes:episodeType><itunes:explicit>no</itunes:explicit><itunes:author>Host \(show)</itunes:author>
            <podcast:chapters url="https://show\(show).example.org/\(number)/chapters.json" type="application/json+chapters"/>
            <podcast:transcript url="https://show\(show).example.org/\(number)/transcript.vtt" type="text/vtt"/>
            <podcast:person role="host" href="https://example.org/host\(show)">Host \(show)</podcast:person>
            <psc:chapters version="1.2"><psc:chapter start="00:00:00" title="Intro"/><psc:chapter start="00:05:00" title="Main part"/></psc:chapters>
            </item>

            """
    }

    /// About 2 KB of HTML.
    private static func description(show: Int, number: Int) -> String {
        var html = "<p>In episode <b>\(number)</b> of show \(show) we talk about numbers &amp; what they mean.</p>"
        let sentence = "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore "
            + "et dolore magna aliqua. <a href=\"https://example.org/\(number)\">Show notes</a> &mdash; links &amp; more.</p>"
        while html.utf8.count < 2000 { html += sentence }
        return html
    }

    private static let rfc822Format: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }()

    private static func rfc822(_ date: Date) -> String { rfc822Format.string(from: date) }

    /// The subscriptions as OPML, as gPodder exports them.
    func opml(baseURL: String) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<opml version=\"2.0\"><head><title>Scale</title></head><body>\n"
        for feed in feeds {
            out += "<outline text=\"Scale Show \(feed.index)\" type=\"rss\" xmlUrl=\"\(baseURL)\(feed.path)\"/>\n"
        }
        return out + "</body></opml>\n"
    }
}
