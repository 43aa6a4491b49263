import Foundation
import Glibc
import PodsClient
import PodsLibrary
import PodsTestSupport
import Testing

/// The podcasts' rules on the real podsd (FEATURES-2 §5 #4, tests 2–4):
/// what `ignore-episodes`, `min-duration` and `episode-types` ignore after a
/// refresh is never unplayed, downloaded or sent to the sync; `keep-downloads`
/// deletes the oldest file the listener did not keep within 5 s of the
/// refresh, never a queued one; `delete-played-after` deletes played
/// downloads at start and after a refresh, never one downloaded by hand.
@Suite(.serialized, .timeLimit(.minutes(4))) struct PodcastRulesServiceTests {
    /// An item: guid (also its audio's path), title, day of November 2026, seconds, episode type.
    struct Item {
        var guid: String
        var title: String
        var day: Int
        var seconds = 1800
        var type: String?
    }

    static func feed(_ server: LoopbackHTTPServer, _ items: [Item]) -> Data {
        Data(("""
            <?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Rules</title>
            """ + items.map { item in
                let type = item.type.map { "<itunes:episodeType>\($0)</itunes:episodeType>" } ?? ""
                return """
                    <item><title>\(item.title)</title><guid>\(item.guid)</guid><pubDate>\(String(format: "%02d", item.day)) Nov 2026 08:00:00 GMT</pubDate>
                      <itunes:duration>\(item.seconds)</itunes:duration>\(type)
                      <enclosure url="\(server.url("/\(item.guid).mp3"))" type="audio/mpeg" length="720000"/></item>
                    """
            }.joined() + "</channel></rss>").utf8)
    }

    static func server() throws -> LoopbackHTTPServer {
        var files: [String: URL] = [:]
        for index in 1...9 { files["/e\(index).mp3"] = Fixtures.sampleMP3 }
        for name in ["best", "clip", "trailer"] { files["/\(name).mp3"] = Fixtures.sampleMP3 }
        return try LoopbackHTTPServer(files: files)
    }

    /// Episode ids by title.
    static func ids(_ podsd: PodsdProcess) async throws -> [String: Int64] {
        var ids: [String: Int64] = [:]
        for episode in try await LibraryClient(podsd.client).episodesJSON() {
            if let title = episode["title"] as? String, let id = episode["id"] as? Int { ids[title] = Int64(id) }
        }
        return ids
    }

    /// The downloads as (id, state, byHand).
    static func downloads(_ podsd: PodsdProcess) async throws -> [Int64: (state: String, byHand: Bool)] {
        let list = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("downloads", "--json").stdout.utf8))
                                    as? [[String: Any]])
        var downloads: [Int64: (String, Bool)] = [:]
        for entry in list {
            if let id = entry["episodeId"] as? Int { downloads[Int64(id)] = (entry["state"] as? String ?? "", entry["byHand"] as? Bool ?? false) }
        }
        return downloads
    }

    @Test func ignoredEpisodesAreNeverUnplayedOrDownloadedAndKeepNSparesQueuedOnes() async throws {
        let server = try Self.server()
        defer { server.stop() }
        var items = [Item(guid: "e1", title: "One", day: 1), Item(guid: "e2", title: "Two", day: 2), Item(guid: "e3", title: "Three", day: 3)]
        server.setFile("/feed.xml", Self.feed(server, items))
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let podsd = try await PodsdProcess.start(directory: directory)
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        // A pattern that is no regular expression: one line, nothing saved.
        let bad = await podsd.pods("config", "--podcast", "Rules", "ignore-episodes", "best of|(selects")
        #expect(bad.status == 1 && bad.stderr.contains("is not a regular expression"), "\(bad)")
        for (key, value) in [("ignore-episodes", "best of|selects"), ("min-duration", "10m"), ("episode-types", "full,bonus"),
                             ("keep-downloads", "3")] {
            let set = await podsd.pods("config", "--podcast", "Rules", key, value)
            #expect(set.status == 0, "\(key): \(set)")
        }
        #expect(await podsd.pods("auto-download", "Rules", "3").status == 0)
        var ids = try await Self.ids(podsd)
        try await waitFor(timeout: .seconds(20)) {
            (try? await Self.downloads(podsd))?.values.filter { $0.state == "downloaded" }.count == 3
        }

        // A refresh brings "Best Of 2026", a four-minute clip, a trailer and a regular episode.
        items += [Item(guid: "best", title: "Best Of 2026", day: 7), Item(guid: "clip", title: "A clip", day: 6, seconds: 240),
                  Item(guid: "trailer", title: "Season two", day: 8, type: "trailer"), Item(guid: "e4", title: "Four", day: 4)]
        server.setFile("/feed.xml", Self.feed(server, items))
        #expect(await podsd.pods("refresh").status == 0)
        let refreshed = ContinuousClock.now
        ids = try await Self.ids(podsd)
        let unplayed = try await LibraryClient(podsd.client).episodesJSON(unplayedOnly: true).compactMap { $0["title"] as? String }
        #expect(unplayed == ["Four", "Three", "Two", "One"], "\(unplayed)")
        // Keep 3: the oldest (One) goes within 5 s of the refresh; Four comes; its row stays.
        try await waitFor(timeout: .seconds(20)) {
            let downloads = (try? await Self.downloads(podsd)) ?? [:]
            return downloads[ids["One"] ?? 0] == nil && downloads[ids["Four"] ?? 0]?.state == "downloaded"
        }
        let downloads = try await Self.downloads(podsd)
        #expect(Set(downloads.keys) == Set(["Two", "Three", "Four"].compactMap { ids[$0] }), "\(downloads)")
        print("keep-downloads: the oldest download went \(ContinuousClock.now - refreshed) after the refresh")
        #expect(try await LibraryClient(podsd.client).episodesJSON().contains { $0["title"] as? String == "One" })
        for ignored in ["Best Of 2026", "A clip", "Season two"] {
            let episode = try #require(try await LibraryClient(podsd.client).episodesJSON().first { $0["title"] as? String == ignored })
            #expect(episode["completed"] as? Bool == true, "\(ignored) is marked played")
            #expect(server.requests(for: "/\(ignored == "Best Of 2026" ? "best" : ignored == "A clip" ? "clip" : "trailer").mp3") == 0)
        }
        // The sync hears nothing of them: no action is queued for an ignored episode.
        let library = try Library(directory: directory.appendingPathComponent("data"))
        let queued = Set(try library.queuedActions(limit: 1000).map(\.episodeId))
        #expect(queued.isDisjoint(with: ["Best Of 2026", "A clip", "Season two"].compactMap { ids[$0] }), "\(queued)")

        // Queued, the oldest survives keep 3; a download by hand is the listener's too.
        #expect(await podsd.pods("queue", "add", String(ids["Two"] ?? 0)).status == 0)
        #expect(await podsd.pods("download", String(ids["One"] ?? 0)).status == 0)
        items.append(Item(guid: "e5", title: "Five", day: 5))
        server.setFile("/feed.xml", Self.feed(server, items))
        #expect(await podsd.pods("refresh").status == 0)
        ids = try await Self.ids(podsd)
        try await waitFor(timeout: .seconds(20)) {
            (try? await Self.downloads(podsd))?[ids["Five"] ?? 0]?.state == "downloaded"
        }
        try await Task.sleep(for: .seconds(1))
        let after = try await Self.downloads(podsd)
        #expect(Set(after.keys) == Set(["One", "Two", "Three", "Four", "Five"].compactMap { ids[$0] }), "\(after)")
        #expect(after[ids["One"] ?? 0]?.byHand == true && after[ids["Five"] ?? 0]?.byHand == false)
        #expect(await podsd.pods("downloads").stdout.contains("One  (kept)"))

        // An unplayed episode that left the feed lives on through its download: retention deletes
        // files, never episodes (REVIEW-4, N21: keep 3 took Three's file, the next refresh its row).
        items.removeAll { $0.title == "Three" }
        items.append(Item(guid: "e6", title: "Six", day: 6))
        server.setFile("/feed.xml", Self.feed(server, items))
        #expect(await podsd.pods("refresh").status == 0)
        ids = try await Self.ids(podsd)
        try await waitFor(timeout: .seconds(20)) { (try? await Self.downloads(podsd))?[ids["Six"] ?? 0]?.state == "downloaded" }
        // Keep 3 now counts Six, Five, Four and Three: the oldest went within 5 s above; Three's must not.
        try await Task.sleep(for: .seconds(6))
        #expect(try await Self.downloads(podsd)[ids["Three"] ?? 0] != nil, "the download of an episode out of its feed went")
        #expect(await podsd.pods("refresh").status == 0)
        #expect(try await Self.ids(podsd)["Three"] != nil, "the episode that left the feed went with its download")
        #expect(podsd.isRunning)
    }

    /// Played to its end `hours` ago, as the library keeps it (what podsd then loads is none of it).
    static func played(_ library: Library, _ episode: Int64, hoursAgo hours: Double) throws {
        let then = Date(timeIntervalSinceNow: -hours * 3600)
        _ = try library.startPlaying(episode, at: then)
        try library.markCompleted(episode, true, at: then)
        try library.clearCurrentEpisode()
    }

    @Test func playedDownloadsGoAfterTheirTimeAtStartAndAfterARefresh() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let items = [Item(guid: "e1", title: "One", day: 1), Item(guid: "e2", title: "Two", day: 2), Item(guid: "e3", title: "Three", day: 3),
                     Item(guid: "e4", title: "Four", day: 4)]
        server.setFile("/feed.xml", Self.feed(server, items))
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bus = try await PrivateBus.start()
        var podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        #expect(await podsd.pods("config", "--podcast", "Rules", "delete-played-after", "2d").status == 0)
        let ids = try await Self.ids(podsd)
        let all = ["One", "Two", "Three", "Four"].compactMap { ids[$0] }
        #expect(await podsd.run(Fixtures.executable("pods"), ["download"] + all.map(String.init)).status == 0)
        #expect(await podsd.pods("delete-download", String(ids["One"] ?? 0), String(ids["Three"] ?? 0)).status == 0)
        // Auto-downloads (not by hand): the newest four unplayed.
        #expect(await podsd.pods("auto-download", "Rules", "4").status == 0)
        try await waitFor(timeout: .seconds(20)) {
            (try? await Self.downloads(podsd))?.values.filter { $0.state == "downloaded" }.count == 4
        }
        #expect(try await Self.downloads(podsd).filter(\.value.byHand).keys.sorted() == [ids["Two"], ids["Four"]].compactMap { $0 })

        // Played 49 h ago (One, and Two kept by hand), 47 h ago (Three); Four unplayed.
        #expect(await podsd.signal(SIGTERM) != nil)
        let library = try Library(directory: directory.appendingPathComponent("data"))
        for (title, hours) in [("One", 49.0), ("Two", 49), ("Three", 47)] {
            try Self.played(library, ids[title] ?? 0, hoursAgo: hours)
        }
        // At start: One goes; Two (by hand), Three (not yet 2 days) and Four (unplayed) stay.
        podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        try await waitFor(timeout: .seconds(10)) { (try? await Self.downloads(podsd))?[ids["One"] ?? 0] == nil }
        #expect(Set(try await Self.downloads(podsd).keys) == Set(["Two", "Three", "Four"].compactMap { ids[$0] }))
        // Three's time comes: the next refresh deletes it.
        try Self.played(library, ids["Three"] ?? 0, hoursAgo: 49)
        #expect(await podsd.pods("refresh").status == 0)
        try await waitFor(timeout: .seconds(10)) { (try? await Self.downloads(podsd))?[ids["Three"] ?? 0] == nil }
        #expect(Set(try await Self.downloads(podsd).keys) == Set(["Two", "Four"].compactMap { ids[$0] }))
        #expect(podsd.isRunning)
    }
}
