import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// Calls from one sender are applied in the order sent; plays from several
/// senders at once leave one episode playing, the one the library names,
/// and nothing open behind it.
@Suite struct CallOrderTests {
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

    @Test func theCallsOfACallerThatLeavesAreCancelled() async throws {
        let server = try LoopbackHTTPServer(files: ["/slow.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        // The file is held until the caller has gone (a fixed delay raced this test's own
        // sleeps, which stretch by seconds when a full run keeps the task pool busy).
        server.hold("/slow.mp3")
        let podsd = try await PodsdProcess.start()
        let leaving = try await DBusConnection.connect(address: podsd.bus.address)
        let owners = try await podsd.connection.signals(matching: DBusSignalMatch(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged"))
        // A slow open, then a volume change queued behind it; then the caller goes.
        try leaving.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface,
                         member: "OpenUri", arguments: [.string(server.url("/slow.mp3"))])
        try leaving.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties",
                         member: "Set", arguments: [.string(MPRIS.playerInterface), .string("Volume"), .variant(.double(0.2))])
        try await waitFor(timeout: .seconds(30)) { server.requests(for: "/slow.mp3") > 0 }  // the open is under way
        let leavingName = leaving.uniqueName
        leaving.close()
        for await change in owners where change.arguments.first?.stringValue == leavingName { break }
        try await Task.sleep(for: .seconds(2))  // podsd, told by the bus too, cancels the caller's calls
        server.release("/slow.mp3")
        try await waitFor(timeout: .seconds(30)) {
            (try? await podsd.client.status().url) == server.url("/slow.mp3")
        }
        try await Task.sleep(for: .seconds(1))  // time for a queued call that was wrongly kept to run
        #expect(try await podsd.client.property("Volume") == .double(1), "the queued call of a caller that left ran")
        server.setDelay("/slow.mp3", .seconds(3))
        // A caller that stays has its queued call run after the slow one.
        try podsd.connection.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface,
                                  member: "OpenUri", arguments: [.string(server.url("/slow.mp3"))])
        try podsd.connection.send(destination: MPRIS.busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties",
                                  member: "Set", arguments: [.string(MPRIS.playerInterface), .string("Volume"), .variant(.double(0.2))])
        #expect(try await podsd.client.property("Volume") == .double(0.2))
        #expect(podsd.isRunning)
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
