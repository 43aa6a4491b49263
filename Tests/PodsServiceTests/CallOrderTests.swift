import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// Calls from one sender are applied in the order sent; plays from several
/// senders at once leave one episode playing, the one the library names,
/// and nothing open behind it.
@Suite(.timeLimit(.minutes(10))) struct CallOrderTests {
    @Test func aBurstOfAThousandMixedMPRISCallsIsAppliedInOrder() async throws {
        let podsd = try await PodsdProcess.start()
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)
        try await podsd.client.pause()
        let signals = try await podsd.connection.signals(matching: DBusSignalMatch(sender: MPRIS.busName, path: MPRIS.objectPath))
        let connection = podsd.connection
        // Every hundredth call opens a file (which takes a while), the next
        // pauses it, the rest set the volume: out of order, a pause would
        // reach the old track and the file would end up playing.
        for index in 1...1000 {
            switch index % 100 {
            case 1:
                let file = index % 200 == 1 ? Fixtures.sampleOgg : Fixtures.sampleMP3
                try connection.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface,
                                    member: "OpenUri", arguments: [.string(file.absoluteString)])
            case 2:
                try connection.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface,
                                    member: "Pause")
            default:
                try connection.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties",
                                    member: "Set", arguments: [.string(MPRIS.playerInterface), .string("Volume"),
                                                               .variant(.double(Double(index) / 1000))])
            }
        }
        // Asked after the burst by the same sender: answered after all of it (ten file opens
        // among it: on two loaded cores that takes more than the client's usual 5 s).
        let patient = PlayerClient(connection: connection, timeout: .seconds(60))
        #expect(try await patient.property("Volume") == .double(1))
        #expect(try await podsd.client.property("PlaybackStatus") == .string("Paused"))
        #expect(try await podsd.client.status().url == Fixtures.sampleMP3.absoluteString)
        var volumes: [Double] = []
        var iterator = signals.makeAsyncIterator()
        while volumes.last != 1, let signal = await iterator.next() {
            if let volume = signal.arguments.dropFirst().first?.stringKeyedDictionary?["Volume"]?.doubleValue { volumes.append(volume) }
        }
        #expect(volumes.count == 980)
        #expect(volumes == volumes.sorted(), "volume changes were applied out of order")
    }

    /// A podsd playing the oldest of three episodes, the next one's bytes held by the server.
    static func playingWithTheNextHeld() async throws -> (PodsdProcess, EpisodeServer, next: Int64) {
        let fixture = try await EpisodeServer(seconds: 20)
        let podsd = try await PodsdProcess.start()
        let episodes = try await fixture.subscribe(podsd)
        let (first, next) = (try #require(episodes[.mp3]), try #require(episodes[.ogg]))
        _ = try await LibraryClient(podsd.client).play(episode: first)
        fixture.server.hold(EpisodeServer.path(.ogg))
        return (podsd, fixture, next)
    }

    /// A media-key helper sends and exits without waiting for the answers:
    /// what it asked for is still done (only the replies are dropped).
    @Test func aCallerThatLeavesRightAfterSendingIsStillObeyed() async throws {
        let (podsd, fixture, next) = try await Self.playingWithTheNextHeld()
        defer { fixture.server.stop() }
        let leaving = try await DBusConnection.connect(address: podsd.bus.address)
        let owners = try await podsd.connection.signals(matching: DBusSignalMatch(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged"))
        try leaving.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface, member: "Next")
        try leaving.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface, member: "Pause")
        try leaving.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties",
                         member: "Set", arguments: [.string(MPRIS.playerInterface), .string("Volume"), .variant(.double(0.2))])
        let leavingName = leaving.uniqueName
        leaving.close()
        for await change in owners where change.arguments.first?.stringValue == leavingName { break }
        fixture.server.release(EpisodeServer.path(.ogg))
        try await waitFor(timeout: .seconds(20)) { (try? await podsd.client.status().episodeId) == next }
        try await waitFor(timeout: .seconds(5)) { (try? await podsd.client.property("Volume")) == .double(0.2) }
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await podsd.client.status().state == .paused)
        #expect(podsd.isRunning)
    }

    /// A client that plays an episode and pauses without waiting between
    /// them ends paused on that episode, however long it takes to start:
    /// `OpenUri("pods:episode/<id>")` on the MPRIS name keeps its order
    /// with the `Pause` after it (D-Bus orders one sender's messages to
    /// one name, never across two, so `PlayEpisode` on `org.pods.Pods`
    /// cannot promise it).
    @Test func openingAnEpisodeThenPausingEndsPausedOnItHoweverSlowItStarts() async throws {
        let (podsd, fixture, next) = try await Self.playingWithTheNextHeld()
        defer { fixture.server.stop() }
        let schemes = try await podsd.connection.call(
            destination: MPRIS.busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string(MPRIS.rootInterface), .string("SupportedUriSchemes")])
        #expect(schemes.first?.unwrapped.arrayValue?.compactMap(\.stringValue).contains("pods") == true)
        try podsd.connection.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface,
                                  member: "OpenUri", arguments: [.string("pods:episode/\(next)")])
        try podsd.connection.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface, member: "Pause")
        try await waitFor(timeout: .seconds(20)) { fixture.server.requests(for: EpisodeServer.path(.ogg)) > 0 }
        fixture.server.release(EpisodeServer.path(.ogg))
        try await waitFor(timeout: .seconds(20)) { (try? await podsd.client.status().episodeId) == next }
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await podsd.client.status().state == .paused, "OpenUri then Pause left the episode playing")
        let current = try await LibraryClient(podsd.client).currentEpisode()?.stringKeyedDictionary?["id"]?.int64Value
        #expect(current == next)
        await #expect(throws: DBusError.self) {
            try await podsd.connection.call(destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface,
                                            member: "OpenUri", arguments: [.string("pods:episode/999999")])
        }
    }

    @Test func playsFromTwoClientsAtOnceLeaveWhatTheLibrarySaysPlayingAndNothingOpen() async throws {
        let fixture = try await EpisodeServer(seconds: 20)
        let podsd = try await PodsdProcess.start()
        let episodes = try await fixture.subscribe(podsd).values.sorted()
        try #require(episodes.count == 3)
        let other = try await DBusConnection.connect(address: podsd.bus.address)
        defer { other.close() }
        func play(_ episode: Int64, from connection: DBusConnection) throws {
            try connection.send(destination: PodsBus.name, path: LibraryNames.objectPath, interface: LibraryNames.interface,
                                member: LibraryMethod.playEpisode.name, arguments: [.int64(episode)])
        }
        func openFiles() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(podsd.processIdentifier)/fd").count) ?? 0 }
        func threads() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(podsd.processIdentifier)/task").count) ?? 0 }
        var baseline: (files: Int, threads: Int)?
        // Its CurrentEpisode waits behind its PlayEpisode (one sender's calls run in order), which on two
        // loaded cores can take longer than a quick call's 5 s: a client as patient as PlayEpisode's callers.
        let library = LibraryClient(PlayerClient(connection: podsd.connection, timeout: LibraryMethod.playEpisode.timeout ?? .seconds(20)))
        for round in 0..<50 {
            try play(episodes[round % 3], from: podsd.connection)
            try play(episodes[(round + 1) % 3], from: other)
            // Each sender's next call to the library is answered after its play.
            _ = try await other.call(destination: PodsBus.name, path: LibraryNames.objectPath, interface: LibraryNames.interface,
                                     member: LibraryMethod.currentEpisode.name)
            let current = try await library.currentEpisode()?.stringKeyedDictionary?["id"]?.int64Value
            let status = try await podsd.client.status()
            #expect(status.episodeId != nil && status.episodeId == current, "round \(round): playing \(String(describing: status.episodeId)), the library says \(String(describing: current))")
            if round == 4 { baseline = (openFiles(), threads()) }
        }
        // Caches let go of are closed in the background; a leaked one never is.
        let base = try #require(baseline)
        try? await waitFor(timeout: .seconds(10)) { openFiles() <= base.files + 2 && threads() <= base.threads + 2 }
        #expect(openFiles() <= base.files + 2, "open files: \(base.files) after 5 rounds, \(openFiles()) after 50")
        #expect(threads() <= base.threads + 2, "threads: \(base.threads) after 5 rounds, \(threads()) after 50")
        #expect(podsd.isRunning)
    }
}

/// Timed, so it runs with the real-time group (`scripts/test`): on two cores
/// the parallel suite's other podsd processes would be timed with it.
@Suite(.timeLimit(.minutes(10))) struct SlowCallTests {
    /// A slow `Next` (the next episode's first bytes held by its server)
    /// and a `Refresh` waiting on a feed its server holds never hold up the
    /// `Pause` their sender sends after them: the Pause is answered at once,
    /// and applies to the next episode, which loads paused.
    @Test func aPauseBehindASlowNextIsAnsweredAtOnceAndTheNextEpisodeLoadsPaused() async throws {
        let (podsd, fixture, next) = try await CallOrderTests.playingWithTheNextHeld()
        defer { fixture.server.stop() }
        fixture.server.hold("/feed.xml")
        defer { fixture.server.release("/feed.xml") }
        try podsd.connection.send(destination: PodsBus.name, path: LibraryNames.objectPath, interface: LibraryNames.interface,
                                  member: LibraryMethod.refresh.name, arguments: [.string("")])
        try await waitFor(timeout: .seconds(20)) { fixture.server.requests(for: "/feed.xml") > 1 }  // the refresh is waiting
        try podsd.connection.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface, member: "Next")
        try await waitFor(timeout: .seconds(20)) { fixture.server.requests(for: EpisodeServer.path(.ogg)) > 0 }  // Next is waiting
        let start = ContinuousClock.now
        try await podsd.client.pause()
        let answered = ContinuousClock.now - start
        print("Pause behind a Refresh and a Next waiting for their bytes: answered in \(answered)")
        #expect(answered < .milliseconds(500), "the Pause waited \(answered) behind the Next")
        fixture.server.release(EpisodeServer.path(.ogg))
        try await waitFor(timeout: .seconds(20)) { (try? await podsd.client.status().episodeId) == next }
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await podsd.client.status().state == .paused, "Next then Pause left the next episode playing")
    }

}
