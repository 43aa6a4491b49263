// libFuzzer harness: an episode's show notes (HTML) as pods show and pods ui
// read them: links, paragraphs, and a page's feed links under both URL
// policies. Built by scripts/fuzz with the PodsFeedParser sources. A link
// is always whole text of the note, and a web page names only web feeds.
import Foundation

public func fuzzHTML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let html = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let links = HTMLDocument.links(html)
    precondition(links.count <= HTMLDocument.maximumLinks)
    for link in links {
        precondition(link.url.hasPrefix("http://") || link.url.hasPrefix("https://") || link.url.hasPrefix("mailto:"))
    }
    _ = HTMLDocument.paragraphs(html)
    for feed in HTMLDocument.feedLinks(html, base: "https://example.com/show/") {
        precondition(URLPolicy.isHTTP(feed), "a web page named \(feed)")
    }
    _ = HTMLDocument.feedLinks(html, base: "file:///home/u/show.html")
    return 0
}
