import Foundation

/// A feed whose items all use the bundled sample audio.
public func sampleFeed(_ items: [(guid: String, title: String, day: Int, file: String)], title: String = "Test Show") -> Data {
    var xml = #"<?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>"#
    xml += "<title>\(title)</title><itunes:author>Test Host</itunes:author>"
    for item in items {
        xml += "<item><title>\(item.title)</title><guid>\(item.guid)</guid>"
        xml += "<pubDate>\(String(format: "%02d", item.day)) Nov 2026 08:00:00 GMT</pubDate>"
        xml += #"<enclosure url="\#(item.file)" type="audio/mpeg"/></item>"#
    }
    return Data((xml + "</channel></rss>").utf8)
}
