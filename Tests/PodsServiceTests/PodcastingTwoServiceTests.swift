import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// Podcasting 2.0 through the real podsd and `pods`: a podcast's page
/// (medium, update frequency, people, funding, trailers, podroll), an
/// episode's soundbites, season name and alternate audio chosen by
/// `preferred-format`, chapters from show-notes times, and a feed that
/// moved found by its `podcast:guid`.
@Suite(.timeLimit(.minutes(10))) struct PodcastingTwoServiceTests {
    static func feed(_ server: LoopbackHTTPServer, title: String = "Two Show", guid: String = "0c6e3d5c-8c5a-5b14-9d4e-1b1f1ad7e5a0")
        -> Data {
        Data("""
            <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0">
            <channel><title>\(title)</title><link>https://two.example/</link>
            <podcast:guid>\(guid)</podcast:guid>
            <podcast:medium>music</podcast:medium>
            <podcast:updateFrequency rrule="FREQ=WEEKLY">Every Monday</podcast:updateFrequency>
            <podcast:person role="host" href="https://two.example/ann">Ann Host</podcast:person>
            <podcast:funding url="https://two.example/support">Support us</podcast:funding>
            <podcast:trailer url="\(server.url("/trailer.mp3"))" type="audio/mpeg" season="2">Season two</podcast:trailer>
            <podcast:podroll>
              <podcast:remoteItem feedGuid="aaa" feedUrl="\(server.url("/other.xml"))" title="Other Show"/>
              <podcast:remoteItem feedGuid="\(guid)" feedUrl="\(server.url("/feed.xml"))" title="This very show"/>
              <podcast:remoteItem feedGuid="bbb"/>
            </podcast:podroll>
            <item><title>One</title><guid>one</guid><pubDate>Mon, 02 Nov 2026 08:00:00 GMT</pubDate>
              <description><![CDATA[<p>In this one:</p><p>0:00 Hello</p><p>0:30 – The middle</p><p>(1:00) The end</p>]]></description>
              <enclosure url="\(server.url("/a.mp3"))" type="audio/mpeg" length="720000"/>
              <podcast:alternateEnclosure type="audio/ogg" bitrate="96000" title="Ogg">
                <podcast:source uri="ipfs://QmNothing"/><podcast:source uri="\(server.url("/e.ogg"))"/>
              </podcast:alternateEnclosure>
              <podcast:season name="Egypt">3</podcast:season>
              <podcast:soundbite startTime="12.5" duration="20">The best bit</podcast:soundbite>
            </item></channel></rss>
            """.utf8)
    }

    /// A preferred alternate that does not answer gives way to the feed's own file (ADVERSARIAL-5, 11).
    @Test func anAlternateThatFailsGivesWayToTheFeedsOwnFile() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])  // no /e.ogg: a 404
        defer { server.stop() }
        server.setFile("/feed.xml", Self.feed(server))
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        #expect(await podsd.pods("config", "--podcast", "Two Show", "preferred-format", "vorbis").status == 0)
        let id = String(try #require(try await LibraryClient(podsd.client).episodesJSON().first?["id"] as? Int))
        let played = await podsd.pods("play", id)
        #expect(played.status == 0, "\(played)")
        try await waitFor(timeout: .seconds(10)) { await podsd.pods("status", "--json").stdout.contains("\"Playing\"") }
        #expect(server.requests(for: "/e.ogg") > 0 && server.requests(for: "/a.mp3") > 0)
    }

    @Test func pagesAlternatesNotesChaptersAndAMovedFeed() async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3, "/e.ogg": Fixtures.sampleOgg])
        defer { server.stop() }
        server.setFile("/feed.xml", Self.feed(server))
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)

        // The podcast's page.
        let page = await podsd.pods("podcast", "Two Show")
        #expect(page.status == 0, "\(page)")
        for line in ["Two Show", "music · 1 unplayed of 1", "Comes out: Every Monday", "People\n  Ann Host (host)  https://two.example/ann",
                     "Support the show\n  Support us  https://two.example/support",
                     "Trailers\n  Season two (season 2)  pods play \(server.url("/trailer.mp3"))",
                     "Recommended shows\n  Other Show  pods subscribe \(server.url("/other.xml"))\n  This very show  subscribed\n"
                        + "  A show  pods subscribe guid:bbb"] {
            #expect(page.stdout.contains(line), "\(line) in\n\(page.stdout)")
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("podcast", "Two Show", "--json").stdout.utf8))
            as? [String: Any])
        #expect(json["medium"] as? String == "music" && json["updateRule"] as? String == "FREQ=WEEKLY" && json["complete"] as? Bool == false)
        #expect((json["podroll"] as? [[String: Any]])?.map { $0["subscribed"] as? Bool } == [false, true, false])
        #expect((json["trailers"] as? [[String: Any]])?.first?["season"] as? Int == 2)

        #expect(await podsd.pods("podcasts").stdout.contains("Two Show [music]  (1 unplayed of 1)"))

        // The episode's page: season name, soundbite, both audio files (the feed's own plays), chapters from the notes.
        let episodes = try await LibraryClient(podsd.client).episodesJSON()
        let id = String(try #require(episodes.first?["id"] as? Int))
        let show = await podsd.pods("show", id)
        #expect(show.status == 0, "\(show)")
        for line in ["season 3 (Egypt)", "Soundbites\n  0:12  0:20  The best bit  (pods play \(id) --at 0:12)",
                     "Audio  \(server.url("/a.mp3"))  (audio/mpeg, 720 KB)  ← plays",
                     "Audio  \(server.url("/e.ogg"))  (Ogg, audio/ogg, 96 kbit/s)",
                     "Chapters\n    1  0:00  Hello\n    2  0:30  The middle\n    3  1:00  The end"] {
            #expect(show.stdout.contains(line), "\(line) in\n\(show.stdout)")
        }

        // preferred-format: the Ogg alternate plays, and only it is fetched.
        #expect(await podsd.pods("config", "--podcast", "Two Show", "preferred-format", "vorbis").status == 0)
        #expect(await podsd.pods("show", id).stdout.contains("Audio  \(server.url("/e.ogg"))  (Ogg, audio/ogg, 96 kbit/s)  ← plays"))
        // The MPRIS TrackList names the file that will play for a queued episode too.
        #expect(await podsd.pods("queue", "add", id).status == 0)
        let track = try #require(DBusObjectPath("/org/pods/episode/\(id)"))
        var queued: [String: DBusValue] = [:]
        try await waitFor {
            let reply = try? await podsd.connection.call(
                destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.trackListInterface,
                member: "GetTracksMetadata", arguments: [.array(.objectPath, [.objectPath(track)])])
            queued = reply?.first?.arrayValue?.first?.stringKeyedDictionary ?? [:]
            return !queued.isEmpty
        }
        #expect(queued["xesam:url"] == .string(server.url("/e.ogg")), "\(queued)")
        #expect(await podsd.pods("play", id, "--at", "0:20").status == 0)
        try await waitFor { await podsd.pods("status", "--json").stdout.contains("\"Playing\"") }
        #expect(server.requests(for: "/e.ogg") > 0 && server.requests(for: "/a.mp3") == 0)
        #expect(await podsd.pods("pause").status == 0)

        // A feed that repeats the guid and the title is a podcast of its own, never this one moved
        // (REVIEW-4, N2): both kept, the first's progress intact, and the listener told what it looks like.
        server.setFile("/copy.xml", Self.feed(server))
        let copy = await podsd.pods("subscribe", server.url("/copy.xml"))
        #expect(copy.status == 0 && copy.stdout.contains("This looks like a show you follow: Two Show"), "\(copy)")
        let both = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("podcasts", "--json").stdout.utf8))
            as? [[String: Any]])
        #expect(Set(both.compactMap { $0["feedURL"] as? String }) == [server.url("/feed.xml"), server.url("/copy.xml")], "\(both)")
        let kept = try await LibraryClient(podsd.client).episodesJSON().first { ($0["id"] as? Int).map(String.init) == id }
        #expect((kept?["position"] as? Double ?? 0) >= 20, "\(String(describing: kept))")
        let copyID = both.first { $0["feedURL"] as? String == server.url("/copy.xml") }?["id"] as? Int
        #expect(await podsd.pods("unsubscribe", String(copyID ?? 0)).status == 0)
        // The feed moved, said by the feed itself (its new-feed-url): the same podcast, its progress kept.
        server.setFile("/moved.xml", Self.feed(server))
        let feed = String(decoding: Self.feed(server), as: UTF8.self).replacingOccurrences(
            of: "<channel>", with: "<channel><itunes:new-feed-url>\(server.url("/moved.xml"))</itunes:new-feed-url>")
            .replacingOccurrences(of: "<rss version=\"2.0\"", with: "<rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"")
        server.setFile("/feed.xml", Data(feed.utf8))
        #expect(await podsd.pods("refresh").status == 0)
        let podcasts = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("podcasts", "--json").stdout.utf8))
            as? [[String: Any]])
        #expect(podcasts.count == 1 && podcasts.first?["feedURL"] as? String == server.url("/moved.xml"), "\(podcasts)")
        let after = try await LibraryClient(podsd.client).episodesJSON()
        #expect(after.count == 1 && (after.first?["position"] as? Double ?? 0) >= 20, "\(after)")
        #expect(podsd.isRunning)
    }
}
