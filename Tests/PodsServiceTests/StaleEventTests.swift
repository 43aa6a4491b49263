import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// Events that cannot go stale: an event about a load that another load
/// has since replaced changes nothing (each provoked here on a real podsd).
@Suite(.timeLimit(.minutes(10))) struct StaleEventTests {
    /// An episode ending just as a `PlayEpisode` of another arrives: the
    /// end's auto-next never takes the place of the episode asked for.
    @Test func anEndDuringPlayEpisodeNeverStartsTheNextInstead() async throws {
        let fixture = try await EpisodeServer(seconds: 20)
        defer { fixture.server.stop() }
        let podsd = try await PodsdProcess.start()
        let episodes = try await fixture.subscribe(podsd)
        let (ending, asked) = (try #require(episodes[.mp3]), try #require(episodes[.m4a]))  // auto-next after mp3 is ogg
        let library = LibraryClient(PlayerClient(connection: podsd.connection, timeout: .seconds(20)))
        for round in 0..<12 {
            try await library.play(episode: ending)
            try await podsd.client.setPosition(.seconds(20) - .milliseconds(150))
            try await Task.sleep(for: .milliseconds(100 + 10 * round))  // about when it ends, a little later each round
            try await library.play(episode: asked)
            try await Task.sleep(for: .milliseconds(400))  // time for a stale auto-next to show
            let status = try await podsd.client.status()
            #expect(status.episodeId == asked, "round \(round): \(String(describing: status.episodeId)) plays, not \(asked)")
        }
    }

    /// Another track's "this is not an episode" event arriving after a
    /// `PlayEpisode` that came later never releases the episode it plays.
    @Test func aLateOtherTrackEventNeverReleasesTheEpisodeThatFollowedIt() async throws {
        // Three minutes: each round resumes the episode where the last left it, and on loaded
        // cores a round can take seconds; a 20 s episode once ended in round 6 and the next played.
        let fixture = try await EpisodeServer()
        defer { fixture.server.stop() }
        let podsd = try await PodsdProcess.start()
        let episode = try #require(try await fixture.subscribe(podsd)[.ogg])
        let library = LibraryClient(PlayerClient(connection: podsd.connection, timeout: .seconds(20)))
        for round in 0..<10 {
            // The file, then the episode as soon as the player has taken the file (its
            // "not an episode" event may still be on its way to the library then).
            try podsd.connection.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface,
                                      member: "OpenUri", arguments: [.string(Fixtures.sampleMP3.absoluteString)])
            try await waitFor(timeout: .seconds(10)) { (try? await podsd.client.status().url) == Fixtures.sampleMP3.absoluteString }
            try await Task.sleep(for: .milliseconds(2 * round))
            try await library.play(episode: episode)
            try await Task.sleep(for: .milliseconds(300))
            let status = try await podsd.client.status()
            let current = try await library.currentEpisode()?.stringKeyedDictionary?["id"]?.int64Value
            #expect(status.episodeId == episode && current == episode,
                    "round \(round): playing \(String(describing: status.episodeId)), the library says \(String(describing: current))")
        }
    }

    /// A play that fails leaves the library on the episode that played
    /// before: a restart resumes that one, not the one that could not play.
    @Test func aFailedPlayLeavesTheLibraryOnTheEpisodeBefore() async throws {
        let server = try LoopbackHTTPServer(files: ["/good.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFile("/feed.xml", sampleFeed([("good", "Good", 1, server.url("/good.mp3")), ("gone", "Gone", 2, server.url("/gone.mp3"))]))
        let directory = try Fixtures.temporaryDirectory()
        let podsd = try await PodsdProcess.start(directory: directory)
        let library = LibraryClient(podsd.client)
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        let episodes = try await episodesByGuid(podsd)
        let (good, gone) = (try #require(episodes["good"]?["id"] as? Int64), try #require(episodes["gone"]?["id"] as? Int64))
        try await library.play(episode: good)
        await #expect(throws: PlayerClient.Failure.self) { try await library.play(episode: gone) }
        #expect(try await library.currentEpisode()?.stringKeyedDictionary?["id"]?.int64Value == good)
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        let again = try await PodsdProcess.start(bus: podsd.bus, directory: directory)
        try await waitFor(timeout: .seconds(10)) { (try? await again.client.status().episodeId) == good }
        #expect(try await again.client.status().state == .paused)
    }
}

/// A load is one change: a podcast with a speed of its own starts at it,
/// and no `PropertiesChanged` on the way shows the track before at that speed.
@Suite(.timeLimit(.minutes(10))) struct LoadTransactionTests {
    @Test func theFirstChangeOfANewEpisodeDescribesItWhole() async throws {
        let fixture = try await EpisodeServer(seconds: 20)
        defer { fixture.server.stop() }
        let podsd = try await PodsdProcess.start()
        let episode = try #require(try await fixture.subscribe(podsd)[.ogg])
        #expect(await podsd.pods("config", "--podcast", "Noise", "speed", "1.5").status == 0)
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)  // another track, at 1.0
        let signals = try await podsd.connection.signals(matching: DBusSignalMatch(
            sender: MPRIS.busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        // What clients know before the play (read after it, the rate was already the episode's, and a
        // late change of the other track without Metadata then looked like the new rate with no track).
        var seen: [String: DBusValue] = [
            "Rate": try await podsd.client.property("Rate"),
            "Metadata": .variantDictionary([:]),
        ]
        try await LibraryClient(podsd.client).play(episode: episode)
        var trackIDs: [String] = []
        for await signal in signals {
            for (key, value) in signal.arguments.dropFirst().first?.stringKeyedDictionary ?? [:] { seen[key] = value.unwrapped }
            let trackID = seen["Metadata"]?.stringKeyedDictionary?[MPRIS.Metadata.trackID]?.objectPathValue?.rawValue ?? ""
            trackIDs.append(trackID)
            if seen["Rate"] == .double(1.5) {
                #expect(trackID.hasSuffix("/episode/\(episode)"), "a change showed \(trackID) at the episode's speed")
                break
            }
        }
        #expect(try await podsd.client.status().episodeId == episode)
        #expect(try await podsd.client.property("Rate") == .double(1.5))
    }
}
