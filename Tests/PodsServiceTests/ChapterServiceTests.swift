import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// Chapters from the feed, its chapters file and the MP3's tags, merged;
/// jumps, Next and Previous across chapters and episodes, on a real podsd.
@Suite(.timeLimit(.minutes(10))) struct ChapterServiceTests {
    /// A real M4A that GStreamer plays, with one box in `moov` whose 64-bit
    /// size is Int64.max: podsd died reading its chapters, and again at
    /// every start (it resumed the episode and read them again).
    @Test func anMP4WithAnAbsurdBoxSizePlaysAndPodsdStartsAgain() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let clean = try await ChapterFixtures.make(.m4a, Self.marks, seconds: 40, name: "clean.m4a", in: directory)
        let hostile = directory.appendingPathComponent("hostile.m4a")
        try Data(try ChapterFixtures.inserting(boxOfSize: UInt64(Int64.max), into: ["moov", "udta"], atEnd: false,
                                              of: Array(Data(contentsOf: clean)))).write(to: hostile)
        let feed = directory.appendingPathComponent("feed.xml")
        try sampleFeed([("h", "Hostile", 1, hostile.absoluteString)], title: "Boxes").write(to: feed)
        do {
            let podsd = try await PodsdProcess.start(directory: directory)
            #expect(await podsd.pods("subscribe", feed.absoluteString).status == 0)
            #expect(await podsd.pods("play", "1").status == 0)
            try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(10)) { $0 > 0.5 }
            _ = await podsd.pods("chapters")
            #expect(podsd.isRunning)
            #expect(await podsd.signal(SIGTERM)?.status == 0)
        }
        let podsd = try await PodsdProcess.start(directory: directory)
        try await waitFor { await podsd.playerctl("status").stdout.trimmed == "Paused" }
        #expect(await podsd.playerctl("play").status == 0)
        try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(10)) { $0 > 1 }
        #expect(podsd.isRunning)
    }

    static let marks = [
        ChapterFixtures.Mark(0, 10, "Intro"), ChapterFixtures.Mark(10, 20, "Part A"),
        ChapterFixtures.Mark(20, 30, "Part B"), ChapterFixtures.Mark(30, 40, "Outro"),
    ]

    /// One podcast: episode "Chaptered" (ID3 chapters in the MP3, PSC
    /// chapters in the feed with one title missing, a JSON file with a
    /// silent image chapter) and "Plain" (a chapters URL that is a 404).
    struct Setup {
        let server: LoopbackHTTPServer
        let podsd: PodsdProcess
        let chaptered: Int64
        let plain: Int64
    }

    static func setUp() async throws -> Setup {
        let directory = try Fixtures.temporaryDirectory()
        let mp3 = try await ChapterFixtures.make(.mp3, marks, seconds: 40, name: "chaptered.mp3", in: directory)
        let plainMP3 = try await ChapterFixtures.make(.mp3, [], seconds: 40, name: "plain.mp3", in: directory)
        let server = try LoopbackHTTPServer(files: ["/chaptered.mp3": mp3, "/plain.mp3": plainMP3])
        server.setFile("/art.png", Data([0x89] + Array("PNG not really".utf8)), type: "image/png")
        server.setFile("/chapters.json", Data("""
            {"version": "1.2.0", "chapters": [{"startTime": 12, "endTime": 18, "title": "Sponsor", "toc": false,
              "img": "\(server.url("/art.png"))"}]}
            """.utf8), type: "application/json+chapters")
        server.setFile("/feed.xml", feed(server))
        let podsd = try await PodsdProcess.start()
        _ = try await LibraryClient(podsd.client).subscribe(server.url("/feed.xml"))
        let episodes = try await LibraryClient(podsd.client).episodesJSON()
        func id(_ title: String) throws -> Int64 {
            Int64(try #require(episodes.first { $0["title"] as? String == title }?["id"] as? Int))
        }
        return Setup(server: server, podsd: podsd, chaptered: try id("Chaptered"), plain: try id("Plain"))
    }

    static func feed(_ server: LoopbackHTTPServer) -> Data {
        Data("""
            <?xml version="1.0"?>
            <rss version="2.0" xmlns:psc="http://podlove.org/simple-chapters" xmlns:podcast="https://podcastindex.org/namespace/1.0">
            <channel><title>Chapter Show</title>
            <item><title>Plain</title><guid>plain</guid><pubDate>Tue, 03 Nov 2026 08:00:00 GMT</pubDate>
              <enclosure url="\(server.url("/plain.mp3"))" type="audio/mpeg"/>
              <podcast:chapters url="\(server.url("/missing.json"))" type="application/json+chapters"/></item>
            <item><title>Chaptered</title><guid>chaptered</guid><pubDate>Mon, 02 Nov 2026 08:00:00 GMT</pubDate>
              <enclosure url="\(server.url("/chaptered.mp3"))" type="audio/mpeg"/>
              <podcast:chapters url="\(server.url("/chapters.json"))" type="application/json+chapters"/>
              <psc:chapters version="1.2"><psc:chapter start="0" title="Welcome"/><psc:chapter start="10.4" title=""/>
                <psc:chapter start="20" title="The middle" href="https://example.com/b"/><psc:chapter start="30" title="Goodbye"/>
              </psc:chapters></item>
            </channel></rss>
            """.utf8)
    }

    static func json(_ result: CommandResult) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    static func position(_ podsd: PodsdProcess) async throws -> Double {
        Double(try await podsd.client.property("Position").int64Value ?? 0) / 1_000_000
    }

    static func metadata(_ podsd: PodsdProcess) async throws -> [String: DBusValue] {
        try await podsd.client.property("Metadata").stringKeyedDictionary ?? [:]
    }

    /// Waits for `condition` on podsd's state, polling.
    static func eventually(_ what: String, timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSupportError("\(what) did not happen within \(timeout)")
    }

    @Test func chaptersFromEverySourceMergedAndListedBeforePlaying() async throws {
        let setup = try await Self.setUp()
        defer { setup.server.stop() }
        // Neither loaded nor downloaded: browsing fetches none of its audio (the feed's and the
        // JSON file's chapters only), so no host learns what is browsed and no tag reader runs.
        let browsed = await setup.podsd.pods("chapters", String(setup.chaptered), "--json")
        let fromFeed = try #require(try Self.json(browsed) as? [[String: Any]], "\(browsed)")
        #expect(fromFeed.map { $0["title"] as? String } == ["Welcome", "", "The middle", "Goodbye"])
        #expect(setup.server.bytesSent(for: "/chaptered.mp3") == 0, "browsing fetched the audio")

        // Downloaded: the MP3's own tag is read too, once.
        #expect(await setup.podsd.pods("download", String(setup.chaptered)).status == 0)
        var listed = browsed
        try await Self.eventually("the downloaded file's chapters") {
            listed = await setup.podsd.pods("chapters", String(setup.chaptered), "--json")
            return ((try? Self.json(listed)) as? [[String: Any]])?.contains { $0["title"] as? String == "Part A" } == true
        }
        let chapters = try #require(try Self.json(listed) as? [[String: Any]])
        #expect(chapters.map { $0["title"] as? String } == ["Welcome", "Part A", "The middle", "Goodbye"])
        #expect(chapters.map { $0["index"] as? Int } == [1, 2, 3, 4])
        #expect(chapters.map { $0["start"] as? Double } == [0, 10.4, 20, 30])
        #expect(chapters.map { $0["end"] as? Double } == [10.4, 20, 30, 40])
        #expect(chapters.map { $0["source"] as? String } == ["psc", "psc", "psc", "psc"])
        #expect(chapters[2]["url"] as? String == "https://example.com/b")
        #expect(Set(chapters[0].keys) == ["index", "start", "end", "title", "url", "image", "source", "skipped"])

        // Kept: listing again fetches nothing; a new chapters URL (here a broken file) is fetched, its error kept.
        _ = await setup.podsd.pods("chapters", String(setup.chaptered), "--json")
        #expect(setup.server.requests(for: "/chapters.json") == 1)
        setup.server.setFile("/broken.json", Data("{\"version\": \"1.2.0\", \"chapters\": [".utf8), type: "application/json")
        setup.server.setFile("/feed.xml", Data(String(decoding: Self.feed(setup.server), as: UTF8.self)
            .replacingOccurrences(of: "/chapters.json", with: "/broken.json").utf8))
        #expect(await setup.podsd.pods("refresh").status == 0)
        let afterBroken = await setup.podsd.pods("chapters", String(setup.chaptered), "--json")
        let kept = try Self.json(afterBroken) as? [[String: Any]]
        #expect(afterBroken.status == 0 && kept?.count == 4, "\(afterBroken)")
        _ = await setup.podsd.pods("chapters", String(setup.chaptered))
        #expect(setup.server.requests(for: "/broken.json") == 1, "a broken file is not fetched again at once")

        // A chapters file that is a 404: that source is left out, nothing fails.
        let plain = await setup.podsd.pods("chapters", String(setup.plain), "--json")
        #expect(plain.status == 0 && plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "\(plain)")
        #expect(setup.podsd.isRunning)
    }

    @Test func jumpsNextAndPreviousAcrossChaptersAndEpisodes() async throws {
        let setup = try await Self.setUp()
        defer { setup.server.stop() }
        let podsd = setup.podsd
        let signals = try await podsd.connection.signals(matching: DBusSignalMatch(
            sender: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface, member: "Seeked"))
        var seeked = signals.makeAsyncIterator()
        try await LibraryClient(podsd.client).play(episode: setup.chaptered)
        try await Self.eventually("the chapters loading") { try await Self.metadata(podsd)["xesam:title"] == .string("Welcome") }
        var metadata = try await Self.metadata(podsd)
        #expect(metadata["xesam:album"] == .string("Chaptered"))
        #expect(metadata["xesam:trackNumber"] == .int32(1))
        #expect(try await podsd.client.property("CanGoNext") == .bool(true))

        // pods chapter N: lands within 100 ms of the chapter's start, and a Seeked follows.
        let jumped = await podsd.pods("chapter", "3")
        #expect(jumped.status == 0, "\(jumped)")
        let landed = try await Self.position(podsd)
        #expect(landed >= 19.95 && landed < 20.1, "landed at \(landed)")
        let signal = await seeked.next()
        #expect(signal?.arguments.first?.int64Value.map { abs($0 - 20_000_000) < 100_000 } == true)
        let status = try #require(try Self.json(await podsd.pods("status", "--json")) as? [String: Any])
        let chapter = try #require(status["chapter"] as? [String: Any])
        #expect(chapter["index"] as? Int == 3 && chapter["title"] as? String == "The middle" && chapter["start"] as? Double == 20)
        #expect(status["title"] as? String == "Chaptered")
        #expect(status.keys.contains("sleep") && status.keys.contains("silenceSkipped"))

        // The silent JSON chapter lends its image (a local copy) from 12 s to 18 s.
        _ = await podsd.pods("chapter", "2")
        try await podsd.client.setPosition(.seconds(13))
        try await Self.eventually("the chapter image") {
            (try await Self.metadata(podsd)["mpris:artUrl"]?.stringValue ?? "").hasPrefix("file://")
        }
        metadata = try await Self.metadata(podsd)
        #expect(metadata["xesam:title"] == .string("Part A"))

        // pods chapter next / prev.
        #expect(await podsd.pods("chapter", "next").status == 0)
        #expect(abs(try await Self.position(podsd) - 20) < 0.1)
        #expect(await podsd.pods("chapter", "prev").status == 0)
        #expect(abs(try await Self.position(podsd) - 10.4) < 0.1)
        try await podsd.client.setPosition(.seconds(13))

        // Previous more than 3 s into a chapter goes to its start; within 3 s, to the chapter before.
        try await podsd.client.setPosition(.seconds(15))
        #expect((await podsd.playerctl("previous")).status == 0)
        #expect(abs(try await Self.position(podsd) - 10.4) < 0.1)
        #expect((await podsd.pods("previous")).status == 0)
        #expect(abs(try await Self.position(podsd)) < 0.1)

        // A chapter that does not exist: one line, nothing moves.
        try await podsd.client.setPosition(.seconds(25))
        let missing = await podsd.pods("chapter", "9")
        #expect(missing.status == 1 && missing.stderr == "pods: There is no chapter 9; this episode has 4\n", "\(missing)")
        #expect(abs(try await Self.position(podsd) - 25) < 0.5)

        // Next in the last chapter with nothing queued: the podcast's next newer episode.
        _ = await podsd.pods("chapter", "4")
        #expect((await podsd.playerctl("next")).status == 0)
        try await Self.eventually("the next episode") {
            try await Self.metadata(podsd)["pods:episodeId"] == .int64(setup.plain)
        }
        // Plain is the newest: nothing after it, so CanGoNext turns false and Next stops.
        try await Self.eventually("CanGoNext false") { try await podsd.client.property("CanGoNext") == .bool(false) }
        #expect(try await podsd.client.property("CanGoPrevious") == .bool(true))
        // Within 3 s of its start, Previous goes back to the episode played before.
        try await podsd.client.setPosition(.seconds(1))
        #expect((await podsd.pods("previous")).status == 0)
        try await Self.eventually("the previous episode") {
            try await Self.metadata(podsd)["pods:episodeId"] == .int64(setup.chaptered)
        }
        // next-action = episode: Next skips the chapters left.
        #expect(await podsd.pods("config", "next-action", "episode").status == 0)
        try await podsd.client.setPosition(.seconds(5))
        #expect(await podsd.pods("next").status == 0)
        try await Self.eventually("the next episode, chapters skipped") {
            try await Self.metadata(podsd)["pods:episodeId"] == .int64(setup.plain)
        }
        #expect(await podsd.pods("config", "next-action", "chapter").status == 0)

        // Next with nothing next stops (gsd-media-keys calls it regardless).
        _ = await podsd.pods("play", String(setup.plain))
        try await Self.eventually("plain loaded") { try await Self.metadata(podsd)["pods:episodeId"] == .int64(setup.plain) }
        #expect((await podsd.pods("next")).status == 0)
        #expect(try await podsd.client.property("PlaybackStatus") == .string("Stopped"))
        #expect(podsd.isRunning)
    }
}
