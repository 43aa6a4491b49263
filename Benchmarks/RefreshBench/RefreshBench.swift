import Foundation
import PodsFeedParser
import PodsFeeds
import PodsLibrary
import PodsTestSupport

/// Refreshing 200 feeds on loopback (ten hosts, 127.0.0.1–10): half changed
/// (200), half unchanged (304), five slow (2 s), five dead. Pods' parallel
/// refresh against the same refresh done one feed after another, as gPodder
/// does, in the same run; then a refresh with nothing changed, which must
/// parse no feed.
@main
struct RefreshBench {
    static let feedCount = 200
    static let hostCount = 10
    /// Spread over five hosts each.
    static let slow: Set = [7, 48, 89, 130, 171]
    static let dead: Set = [13, 54, 95, 136, 177]

    static func main() async throws {
        let servers = try (1...hostCount).map { try LoopbackHTTPServer(files: [:], host: "127.0.0.\($0)") }
        defer { servers.forEach { $0.stop() } }
        let deadServer = try LoopbackHTTPServer(files: [:], host: "127.0.0.11")
        let deadURL = deadServer.url("/feed.xml")
        deadServer.stop()  // connection refused from now on
        var urls: [String] = []
        for index in 0..<feedCount {
            let server = servers[index % hostCount]
            let path = "/feed-\(index).xml"
            server.setFile(path, feed(index, version: 0))
            if slow.contains(index) { server.setDelay(path, .seconds(2)) }
            urls.append(dead.contains(index) ? deadURL.replacingOccurrences(of: "feed", with: "feed-\(index)") : server.url(path))
        }

        print("refreshing \(feedCount) feeds on \(hostCount) loopback hosts: half changed, half 304, 5 slow (2 s), 5 dead")
        print("\(pad("refresh", 34))\(pad("wall s", 9))\(pad("parsed", 8))\(pad("304", 6))errors")
        var walls: [String: Double] = [:]
        for (name, inHand) in [("pods (16 in hand, 6 per server)", 16), ("one after another (gPodder)", 1)] {
            let directory = try Fixtures.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let library = try Library(directory: directory)
            let refresher = FeedRefresher(library: library, feedsInHand: inHand)
            let subscribed = try await subscribeAll(urls, library: library, refresher: refresher)
            for index in 0..<feedCount where index % 2 == 0 {  // half the feeds get a new episode
                servers[index % hostCount].setFile("/feed-\(index).xml", feed(index, version: 1))
            }
            let start = ContinuousClock.now
            let summaries = try await refresher.refresh(subscribed)
            let wall = (ContinuousClock.now - start) / .seconds(1)
            walls[name] = wall
            report(name, wall, summaries)
            if inHand > 1 {
                let again = ContinuousClock.now
                let unchanged = try await refresher.refresh(subscribed)
                report("pods, nothing changed", (ContinuousClock.now - again) / .seconds(1), unchanged)
            }
            for index in 0..<feedCount where index % 2 == 0 {
                servers[index % hostCount].setFile("/feed-\(index).xml", feed(index, version: 0))
            }
        }
        if let pods = walls["pods (16 in hand, 6 per server)"], let serial = walls["one after another (gPodder)"] {
            print(String(format: "pods takes %.3f× the time of one-after-another (%.1f× faster)", pods / serial, serial / pods))
        }
    }

    /// Subscribes every live feed (dead ones are added with a stored error, as a feed that died after subscribing).
    private static func subscribeAll(_ urls: [String], library: Library, refresher: FeedRefresher) async throws -> [Int64] {
        var ids: [Int64] = []
        for (index, url) in urls.enumerated() {
            if dead.contains(index) {
                ids.append(try library.subscribe(feedURL: url, feed: try FeedParser().parse(feed(index, version: 0)),
                                                 etag: nil, lastModified: nil).id)
            } else {
                ids.append(try await refresher.subscribe(url).id)
            }
        }
        return ids
    }

    private static func report(_ name: String, _ wall: Double, _ summaries: [RefreshSummary]) {
        let parsed = summaries.filter { !$0.notModified && $0.error == nil }.count
        let notModified = summaries.filter(\.notModified).count
        let errors = summaries.filter { $0.error != nil }.count
        print("\(pad(name, 34))\(pad(String(format: "%.3f", wall), 9))\(pad(String(parsed), 8))\(pad(String(notModified), 6))\(errors)")
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// A 20-episode feed; `version` 1 adds one.
    private static func feed(_ index: Int, version: Int) -> Data {
        var xml = #"<?xml version="1.0"?><rss version="2.0"><channel><title>Feed \#(index)</title>"#
        for episode in 0..<(20 + version) {
            xml += "<item><title>Episode \(episode)</title><guid>f\(index)-e\(episode)</guid>"
            xml += "<pubDate>\(1 + episode % 28) Oct 2026 08:00:00 GMT</pubDate><description>Episode \(episode) of feed \(index)</description>"
            xml += #"<enclosure url="http://127.0.0.1/f\#(index)/\#(episode).mp3" type="audio/mpeg" length="1000"/></item>"#
        }
        return Data((xml + "</channel></rss>").utf8)
    }
}
