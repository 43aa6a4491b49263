import Foundation
import PodsFeeds
import PodsHTTP
import PodsLibrary
import PodsTestSupport
import Testing

/// One owner for each limit (HOUSE-2 §7.3): how many transfers run, and to
/// one server, is the process's `TransferScheduler`'s; the refresher bounds
/// only the feeds it has in hand (fetching, or holding a body for the
/// parser), so a refresh can never hold more bodies than that.
@Suite(.timeLimit(.minutes(5))) struct FeedLimitTests {
    private static func feed(_ index: Int, items: Int) -> Data {
        var xml = #"<?xml version="1.0"?><rss version="2.0"><channel><title>Feed \#(index)</title>"#
        for item in 0..<items { xml += #"<item><title>E\#(item)</title><guid>g\#(item)</guid></item>"# }
        return Data((xml + "</channel></rss>").utf8)
    }

    private static func refresh(feeds: Int, inHand: Int) async throws -> (server: Int, summaries: [RefreshSummary]) {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer(files: [:])
        defer { server.stop() }
        let library = try Library(directory: directory)
        let refresher = FeedRefresher(library: library, feedsInHand: inHand)
        var ids: [Int64] = []
        for index in 0..<feeds {
            server.setFile("/\(index).xml", feed(index, items: 2))
            ids.append(try await refresher.subscribe(server.url("/\(index).xml")).id)
            server.setFile("/\(index).xml", feed(index, items: 3))
            server.setDelay("/\(index).xml", .milliseconds(150))
        }
        let summaries = try await refresher.refresh(ids)
        return (server.mostRequestsAtOnce, summaries)
    }

    @Test func aRefreshTakesTheProcesssLimitToOneServer() async throws {
        let (atOnce, summaries) = try await Self.refresh(feeds: 20, inHand: 16)
        #expect(summaries.allSatisfy { $0.added == 1 && $0.error == nil }, "\(summaries)")
        // Six at once, and one more as the server counts: it counts a request until its handler returns,
        // which can be just after curl has the answer and the scheduler has let the next one start.
        #expect(atOnce > 1 && atOnce <= 7, "\(atOnce) requests at once to one server")
    }

    @Test func feedsInHandBoundTheFetches() async throws {
        let (atOnce, summaries) = try await Self.refresh(feeds: 8, inHand: 2)
        #expect(summaries.allSatisfy { $0.added == 1 && $0.error == nil }, "\(summaries)")
        #expect(atOnce <= 3, "\(atOnce) requests at once with two feeds in hand (and one the server is still closing)")
    }
}
