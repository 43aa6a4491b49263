import Foundation
import PodsFeedParser
import PodsLibrary
import PodsTestSupport
import Testing

/// The sync's queue in the library: one action per episode waits, an
/// acknowledgement removes only what was sent, a newer remote change wins.
@Suite(.timeLimit(.minutes(10))) struct LibrarySyncTests {
    private func withLibrary(_ body: (Library, [String: Int64]) throws -> Void) throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try Library(directory: directory)
        var feed = Feed()
        feed.title = "Show"
        feed.episodes = ["a", "b", "c"].map { guid in
            var episode = Episode()
            episode.guid = guid
            episode.title = guid
            episode.duration = 600
            episode.enclosures = [Enclosure(url: "http://example.org/\(guid).mp3", type: "audio/mpeg", length: nil)]
            return episode
        }
        let podcast = try library.subscribe(feedURL: "http://example.org/feed", feed: feed, etag: nil, lastModified: nil)
        let ids = Dictionary(uniqueKeysWithValues: try library.episodes(podcastId: podcast.id).map { ($0.episode.guid, $0.id) })
        try body(library, ids)
    }

    @Test func oneActionPerEpisodeWaitsAndAnAcknowledgementTakesOnlyWhatWasSent() throws {
        try withLibrary { library, ids in
            let a = try #require(ids["a"])
            try library.saveProgress(a, position: 30)
            try library.recordListening(a, started: 0, total: nil)
            try library.saveProgress(a, position: 95.7)
            try library.recordListening(a, started: 30, total: nil)
            var queued = try library.queuedActions(limit: 10)
            #expect(queued.count == 1)
            let first = try #require(queued.first)
            #expect(first.action == "play" && first.started == 30 && first.position == 95 && first.total == 600)
            #expect(first.podcastURL == "http://example.org/feed" && first.episodeURL == "http://example.org/a.mp3" && first.guid == "a")

            // A change while the batch is on its way outlives the batch's acknowledgement.
            try library.markCompleted(a, true)
            try library.acknowledgeActions([first.id], sentAt: Date())
            queued = try library.queuedActions(limit: 10)
            #expect(queued.count == 1 && queued.first?.position == 600 && queued.first?.total == 600)
            try library.markCompleted(a, false)
            #expect(try library.queuedActions(limit: 10).map(\.action) == ["new"])
            // Downloads are kept apart from listening.
            try library.recordDownload(a, kept: true)
            #expect(Set(try library.queuedActions(limit: 10).map(\.action)) == ["new", "download"])
            #expect(try library.queuedActionCount() == 2)
        }
    }

    @Test func aRemoteChangeAppliesOnlyWhenNewerAndDropsOlderQueuedOnes() throws {
        try withLibrary { library, ids in
            let b = try #require(ids["b"])
            let now = Date()
            try library.saveProgress(b, position: 100)
            try library.recordListening(b, started: 0, total: nil, at: now)
            #expect(try library.applyRemote(b, position: 50, completed: false, at: now.addingTimeInterval(-60)) == false)
            #expect(try library.episode(b).position == 100)
            #expect(try library.queuedActionCount() == 1)
            #expect(try library.applyRemote(b, position: 300, completed: false, at: now.addingTimeInterval(60)))
            #expect(try library.episode(b).position == 300)
            #expect(try library.queuedActionCount() == 0, "the older queued action would move others back: dropped")
            // Deferred while playing; taken once.
            try library.deferRemote(b, position: 10, completed: false, at: now.addingTimeInterval(120))
            #expect(try library.takeDeferred(b)?.position == 10)
            #expect(try library.takeDeferred(b) == nil)
        }
    }

    @Test func firstSyncQueuesEverythingListenedAndSubscriptionsAreLogged() throws {
        try withLibrary { library, ids in
            try library.saveProgress(try #require(ids["c"]), position: 42)
            try library.markCompleted(try #require(ids["a"]), true)
            try library.acknowledgeActions(try library.queuedActions(limit: 10).map(\.id), sentAt: nil)
            #expect(try library.queueListeningState() == 2)
            #expect(Set(try library.queuedActions(limit: 10).map(\.position)) == [42, 600])
            #expect(try library.queuedSubscriptions().map(\.feedURL) == ["http://example.org/feed"])
            let podcast = try library.podcasts()[0]
            try library.unsubscribe(podcast.id)
            let changes = try library.queuedSubscriptions()
            #expect(changes.count == 1 && changes.first?.subscribed == false)
            try library.acknowledgeSubscriptions(changes.map(\.id))
            #expect(try library.queuedSubscriptions().isEmpty)
        }
    }

    /// A feed that moved for good is a remove and an add for the server;
    /// an action naming the old address still finds its podcast by guid.
    @Test func aMovedFeedIsARemoveAndAnAdd() throws {
        try withLibrary { library, _ in
            try library.acknowledgeSubscriptions(try library.queuedSubscriptions().map(\.id))
            let podcast = try library.podcasts()[0]
            _ = try library.markNotModified(podcast.id, movedTo: "https://new.example.org/feed")
            let changes = try library.queuedSubscriptions().map { "\($0.subscribed) \($0.feedURL)" }
            #expect(changes == ["false http://example.org/feed", "true https://new.example.org/feed"])
            #expect(try library.podcastIDs(forGuids: ["a", "zzz"]) == ["a": podcast.id])
        }
    }

    @Test func theAccountKeepsEachServersPlace() throws {
        try withLibrary { library, _ in
            #expect(try library.syncAccount() == nil)
            var account = try library.activateSync(SyncAccount(server: "https://a.example", user: "u", device: "d", api: "gpodder"))
            #expect(account.isFirstSync)
            account.actionsSince = 77
            account.subscriptionsSince = 5
            try library.saveSyncState(account)
            _ = try library.activateSync(SyncAccount(server: "https://b.example", user: "u", device: "d", api: "nextcloud"))
            let other = try library.syncAccount()
            #expect(other?.server == "https://b.example" && other?.isFirstSync == true)
            let back = try library.activateSync(SyncAccount(server: "https://a.example", user: "u", device: "d", api: "gpodder"))
            #expect(back.actionsSince == 77 && back.subscriptionsSince == 5)
            try library.deactivateSync()
            #expect(try library.syncAccount() == nil)
        }
    }
}
