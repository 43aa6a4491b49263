import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

/// `skip-chapters` on the real podsd (FEATURES-2 §5 #4, test 1): a sponsor
/// chapter played into is jumped past within 0.3 s of its start at 1× and
/// at 2× (measured where the listening log says the stretch ended), one
/// `Seeked` to its end; `pods chapters` marks it; `Next` and `Previous`
/// step over it; a chapter the listener picks plays; a bad pattern is one
/// clear error and nothing saved. (In the playing lane: it holds real time.)
@Suite(.serialized, .timeLimit(.minutes(3))) struct ChapterSkipServiceTests {
    @Test func aSponsorChapterIsPlayedPastAtOneAndTwoTimes() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // "Sponsor" and "Ad: more" follow one another: one stretch from 10 s to 20 s is skipped.
        let mp3 = try await ChapterFixtures.make(.mp3, [
            ChapterFixtures.Mark(0, 10, "Welcome"), ChapterFixtures.Mark(10, 16, "Sponsor"), ChapterFixtures.Mark(16, 20, "Ad: more"),
            ChapterFixtures.Mark(20, 30, "The middle"), ChapterFixtures.Mark(30, 40, "Goodbye"),
        ], seconds: 40, name: "skips.mp3", in: directory)
        let server = try LoopbackHTTPServer(files: ["/skips.mp3": mp3])
        defer { server.stop() }
        server.setFile("/feed.xml", Data("""
            <?xml version="1.0"?><rss version="2.0"><channel><title>Skip Show</title>
            <item><title>With ads</title><guid>ads</guid><pubDate>02 Nov 2026 08:00:00 GMT</pubDate>
              <enclosure url="\(server.url("/skips.mp3"))" type="audio/mpeg"/></item>
            </channel></rss>
            """.utf8))
        let podsd = try await PodsdProcess.start(directory: directory)
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        let episode = try #require(try await LibraryClient(podsd.client).episodesJSON().first?["id"] as? Int)

        // A pattern that is no regular expression: one line, nothing saved.
        let bad = await podsd.pods("config", "--podcast", "Skip Show", "skip-chapters", "(sponsor")
        #expect(bad.status == 1 && bad.stderr.contains("is not a regular expression") && bad.stderr.split(separator: "\n").count == 1,
                "\(bad)")
        #expect(await podsd.pods("config", "--podcast", "Skip Show", "skip-chapters").stdout == "\n")
        let set = await podsd.pods("config", "--podcast", "Skip Show", "skip-chapters", "^(ad|sponsor)")
        #expect(set.status == 0, "\(set)")

        let signals = try await podsd.connection.signals(matching: DBusSignalMatch(
            sender: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface, member: "Seeked"))
        var seeked = signals.makeAsyncIterator()
        #expect(await podsd.pods("play", String(episode)).status == 0)
        try await waitFor(timeout: .seconds(10)) {
            ((try? await podsd.client.property("Metadata").stringKeyedDictionary) ?? [:])?["xesam:title"] == .string("Welcome")
        }
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("chapters", "--json").stdout.utf8))
                                     as? [[String: Any]])
        #expect(listed.map { $0["skipped"] as? Bool } == [false, true, true, false, false])
        #expect(await podsd.pods("chapters").stdout.contains("Sponsor  (skipped)"))

        // Played into, at 1× and at 2×: one Seeked, to its end, as it begins.
        for rate in [1.0, 2.0] {
            try await podsd.client.setRate(rate)
            try await podsd.client.setPosition(.milliseconds(7_500))
            while let signal = await seeked.next(), signal.arguments.first?.int64Value != 7_500_000 {}
            let skip = await seeked.next()
            #expect(skip?.arguments.first?.int64Value.map { abs($0 - 20_000_000) < 100_000 } == true, "\(String(describing: skip))")
            try await Task.sleep(for: .milliseconds(300))
            try await podsd.client.pause()
            let sessions = try Self.sessions(await podsd.pods("stats", "--export", "json"))
            // The stretch that ended at the skip, and the one the skip began.
            let ended = try #require(sessions.last { abs(($0["from"] as? Double ?? 0) - 7.5) < 0.2 })
            let endedAt = try #require(ended["to"] as? Double)
            print("skip-chapters at \(rate)×: the stretch ended at \(endedAt) s (the chapter begins at 10 s)")
            #expect(abs(endedAt - 10) <= 0.3, "skipped at \(endedAt) s at \(rate)×")
            #expect(abs((sessions.last?["from"] as? Double ?? 0) - 20) < 0.1 && sessions.last?["rate"] as? Double == rate)
            try await podsd.client.play()
        }
        try await podsd.client.setRate(1)

        // Next from the chapter before them goes past them; Previous just after them, to the one before.
        try await podsd.client.setPosition(.seconds(5))
        #expect(await podsd.pods("next").status == 0)
        #expect(abs(try await Self.position(podsd) - 20) < 0.2)
        try await podsd.client.setPosition(.seconds(21))
        #expect(await podsd.pods("previous").status == 0)
        #expect(abs(try await Self.position(podsd)) < 0.2)

        // A skipped chapter the listener picks plays.
        #expect(await podsd.pods("chapter", "2").status == 0)
        try await Task.sleep(for: .milliseconds(1500))
        let picked = try await Self.position(podsd)
        #expect(picked > 10.5 && picked < 13, "the picked chapter played to \(picked)")

        // Cleared: nothing is skipped.
        #expect(await podsd.pods("config", "--podcast", "Skip Show", "skip-chapters", "--unset").status == 0)
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("chapters", "--json").stdout.utf8))
                                    as? [[String: Any]])
        #expect(plain.allSatisfy { $0["skipped"] as? Bool == false })
        #expect(podsd.isRunning)
    }

    private static func position(_ podsd: PodsdProcess) async throws -> Double {
        Double(try await podsd.client.property("Position").int64Value ?? 0) / 1_000_000
    }

    private static func sessions(_ result: CommandResult) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result)")
    }
}
