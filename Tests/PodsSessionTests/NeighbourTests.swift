import Foundation
import PodsLibrary
import PodsPlayer
import PodsSession
import PodsTestSupport
import Testing

/// `Next` follows the library whoever changes it (HOUSE-2 §7.2): the rule
/// lives once, in the session's assembly, and every writer reaches it
/// through the library's announcements. Before, each call site restated it
/// and two forgot: MPRIS `AddTrack` queued the episode but left `CanGoNext`
/// off, and a refresh that added a newer episode never turned it on.
@Suite(.timeLimit(.minutes(5))) struct NeighbourTests {
    /// A queue add (MPRIS `AddTrack` and `pods queue add` make the same
    /// call) while the newest episode plays: there is a next one now, and
    /// `CanGoNext` says so by the time the call returns.
    @Test func queueingWhileTheNewestPlaysTurnsNextOn() async throws {
        let session = try await ListeningSession(seconds: 20)
        defer { session.stop() }
        let (newest, oldest) = (session.episodes[0], session.episodes[2])
        try await session.player.play(episodeID: newest, paused: true)
        try await waitFor(timeout: .seconds(5)) { await session.controller.currentState().track?.episode?.episodeID == newest }
        #expect(await !session.controller.currentState().canGoNext)
        try await session.session.edits.enqueue([oldest], at: 0)
        #expect(await session.controller.currentState().canGoNext)
        try await session.session.edits.dequeue(oldest)
        #expect(await !session.controller.currentState().canGoNext)
    }

    /// A refresh that brings an episode newer than the one playing (the
    /// newest until then): `Next` has somewhere to go once it returns.
    @Test func aRefreshThatAddsANewerEpisodeTurnsNextOn() async throws {
        let session = try await ListeningSession(seconds: 20)
        defer { session.stop() }
        let newest = session.episodes[0]
        try await session.player.play(episodeID: newest, paused: true)
        try await waitFor(timeout: .seconds(5)) { await session.controller.currentState().track?.episode?.episodeID == newest }
        #expect(await !session.controller.currentState().canGoNext)
        let items = (-1..<3).map { index in
            let date = Date(timeIntervalSince1970: 1_800_000_000 - Double(index) * 86400)
            let name = index < 0 ? "new" : "\(index)"
            return """
                <item><guid>e\(name)</guid><title>Episode \(name)</title><pubDate>\(RFC822.string(date))</pubDate>
                <enclosure url="\(session.server.url("/\(name).mp3"))" type="audio/mpeg" length="1000"/></item>
                """
        }
        session.server.setFile("/feed.xml", Data("""
            <?xml version="1.0"?><rss version="2.0"><channel><title>Session</title>\(items.joined())</channel></rss>
            """.utf8))
        let summaries = try await session.session.subscriptions.refresh(nil)
        #expect(summaries.map(\.added) == [1], "\(summaries)")
        #expect(await session.controller.currentState().canGoNext)
    }
}

/// Dates as RSS writes them.
private enum RFC822 {
    static func string(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }
}
