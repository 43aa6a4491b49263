import Foundation
import PodsFeedParser
import PodsLibrary
import PodsTestSupport
import Synchronization
import Testing

/// The library announces what each commit changed, whoever wrote it
/// (`LibraryChangeObserver` on the writer), and its feed delivers merged
/// batches in order.
@Suite(.timeLimit(.minutes(5))) struct LibraryChangeFeedTests {
    /// Every batch a follower heard, in order.
    final class Heard: Sendable {
        private let batches = Mutex<[LibraryChanges]>([])
        var all: LibraryChanges { batches.withLock { $0.reduce(into: LibraryChanges()) { $0.merge($1) } } }
        var count: Int { batches.withLock { $0.count } }
        func add(_ changes: LibraryChanges) { batches.withLock { $0.append(changes) } }
        func clear() { batches.withLock { $0 = [] } }
    }

    private static func library() throws -> (Library, Heard) {
        let library = try Library(directory: try Fixtures.temporaryDirectory())
        let heard = Heard()
        library.changes.follow { heard.add($0) }
        return (library, heard)
    }

    private static func feed(_ guids: [String]) -> Feed { FeedFixtures.feed(guids) }

    /// What `write` announces, once delivered.
    private static func announced(_ library: Library, _ heard: Heard, _ write: () throws -> Void) async rethrows -> LibraryChanges {
        heard.clear()
        try write()
        await library.changes.delivered()
        return heard.all
    }

    @Test func eachWriteAnnouncesWhatItChanged() async throws {
        let (library, heard) = try Self.library()
        var podcast: Podcast?
        let subscribed = try await Self.announced(library, heard) {
            podcast = try library.subscribe(feedURL: "https://example.org/feed", feed: Self.feed(["a", "b", "c"]), etag: nil, lastModified: nil)
        }
        let id = try #require(podcast?.id)
        #expect(subscribed.podcasts && subscribed.episodes == .some([id]) && !subscribed.queue)
        let episodes = try library.episodes(podcastId: id).map(\.id)

        // Progress is no change (it comes every second); a played mark that changes is.
        #expect(try await Self.announced(library, heard) { try library.saveProgress(episodes[0], position: 12) }.isEmpty)
        #expect(try await Self.announced(library, heard) {
            try library.saveProgress(episodes[0], position: 13, completed: true)
        } == LibraryChanges(status: .some([episodes[0]])))
        #expect(try await Self.announced(library, heard) { try library.saveProgress(episodes[0], position: 14, completed: true) }.isEmpty)
        #expect(try await Self.announced(library, heard) { try library.markCompleted(episodes[1], true) }.status == .some([episodes[1]]))
        let playing = try await Self.announced(library, heard) { try library.startPlaying(episodes[2]) }
        #expect(playing.status == .some([episodes[2]]))

        #expect(try await Self.announced(library, heard) { try library.enqueue([episodes[0], episodes[1]]) } == LibraryChanges(queue: true))
        #expect(try await Self.announced(library, heard) { try library.moveInQueue(episodes[1], to: 0) } == LibraryChanges(queue: true))

        // A bookmark taken or deleted, and a podcast's own setting: what `pods ui` and the window follow.
        var bookmark: Int64?
        #expect(try await Self.announced(library, heard) {
            bookmark = try library.addBookmark(episode: episodes[0], position: 5, note: "here").id
        } == LibraryChanges(bookmarks: true))
        let taken = try #require(bookmark)
        #expect(try await Self.announced(library, heard) { try library.deleteBookmark(taken) } == LibraryChanges(bookmarks: true))
        #expect(try await Self.announced(library, heard) {
            try library.setPodcastSetting(id, "speed", "1.5")
        } == LibraryChanges(podcastSettings: true))

        // A refresh that drops an unplayed episode and adds one: its podcast's episodes (and the podcast's row).
        try library.dequeue(episodes[0])
        try library.dequeue(episodes[1])
        try library.markCompleted(episodes[0], false)
        try library.markCompleted(episodes[1], false)
        try library.clearCurrentEpisode()
        let refreshed = try await Self.announced(library, heard) {
            _ = try library.applyRefresh(id, feed: Self.feed(["d", "a", "b"]), etag: nil, lastModified: nil)
        }
        #expect(refreshed.podcasts && refreshed.episodes == .some([id]))

        // A write that fails (rolled back) announces nothing.
        let failed = await Self.announced(library, heard) { #expect(throws: LibraryError.self) { try library.dequeue(999_999) } }
        #expect(failed.isEmpty)

        let unsubscribed = try await Self.announced(library, heard) { try library.unsubscribe(id) }
        #expect(unsubscribed.podcasts)
    }

    /// What is posted while a follower runs reaches it as one batch after.
    @Test func changesDuringDeliveryArriveMerged() async throws {
        let feed = LibraryChangeFeed()
        let heard = Heard()
        let released = Mutex(false)
        // Told when the first batch reaches the follower: awaited, not polled against a clock (a
        // loaded machine's pool may run the delivery late, and the suite's time limit covers a hang).
        let (started, start) = AsyncStream<Void>.makeStream()
        feed.follow { changes in
            heard.add(changes)
            start.yield()
            while heard.count == 1, !released.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(10)) }
        }
        feed.post(LibraryChanges(queue: true))
        var starts = started.makeAsyncIterator()
        _ = await starts.next()
        #expect(heard.count == 1)
        for id in Int64(1)...100 { feed.post(LibraryChanges(status: .some([id]))) }
        feed.post(LibraryChanges(podcasts: true))
        released.withLock { $0 = true }
        await feed.delivered()
        #expect(heard.count == 2)
        #expect(heard.all == LibraryChanges(podcasts: true, status: .init(1...100), queue: true))
    }

    /// A burst that nobody waits for is held to the spacing: what comes meanwhile
    /// joins one batch. A caller that writes and waits (`pods mark`, one after
    /// another) is answered at once, not at the burst's pace. (The spacing is a
    /// minute here, so neither side depends on how loaded the machine is.)
    @Test func aBurstIsPacedButACallerThatWaitsIsNot() async throws {
        let feed = LibraryChangeFeed(spacing: .seconds(60))
        let heard = Heard()
        feed.follow { heard.add($0) }
        feed.post(LibraryChanges(queue: true))
        await feed.delivered()  // the first batch goes at once
        #expect(heard.count == 1)

        // Nobody waits: the next batch waits out the spacing, gathering the burst.
        for id in Int64(1)...5 { feed.post(LibraryChanges(status: .some([id]))) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(heard.count == 1)

        // A caller begins waiting, a moment after its write was posted (as a write's commit posts
        // on the library's lane before its caller hears back): the pause ends for it.
        let waited = ContinuousClock.now
        await feed.delivered()
        #expect(ContinuousClock.now - waited < .seconds(30), "the caller waited out the burst's pace")
        #expect(heard.count == 2 && heard.all.status == .init(1...5))
    }

    /// Ids past the bound become "every one": no batch grows with the library.
    @Test func manyIdsBecomeEverything() {
        var changes = LibraryChanges(status: .init(1...Int64(LibraryChanges.idLimit)))
        #expect(changes.status.ids?.count == LibraryChanges.idLimit)
        changes.merge(LibraryChanges(status: .some([-1])))
        #expect(changes.status == .everything && changes.status.contains(12345))
    }
}
