import Foundation
import PodsClient
import PodsProtocol
import PodsTestSupport
import Testing

/// The `pods` command line against a real podsd.
@Suite(.timeLimit(.minutes(10))) struct CLITests {
    /// The CLI reads as a map: its commands in five groups, one version for
    /// both programs, and one `--json` wherever a script would want it.
    @Test func helpGroupsTheCommandsAndVersionsAgree() async throws {
        let help = await Subprocess.run(Fixtures.executable("pods"), ["--help"])
        for group in ["PLAYBACK", "LIBRARY", "QUEUE AND DOWNLOADS", "SYNC AND SETTINGS", "TOOLS"] {
            #expect(help.stdout.contains("\(group) SUBCOMMANDS:"), "\(help.stdout)")
        }
        let versions = [await Subprocess.run(Fixtures.executable("pods"), ["--version"]),
                        await Subprocess.run(Fixtures.executable("podsd"), ["--version"])]
        #expect(versions.allSatisfy { $0.status == 0 && $0.stdout.trimmed == PodsVersion.current }, "\(versions)")
        for command in [["status"], ["podcasts"], ["episodes"], ["queue", "list"], ["sync", "status"], ["config"], ["inspect"]] {
            let usage = await Subprocess.run(Fixtures.executable("pods"), command + ["--help"])
            #expect(usage.stdout.contains("--json") && usage.stdout.contains("Print JSON instead of text"), "\(command)")
        }
    }

    @Test func playSeekSpeedVolumeStatus() async throws {
        let podsd = try await PodsdProcess.start()
        #expect(await podsd.pods("play", Fixtures.sampleMP3.path).status == 0)
        #expect(await podsd.pods("pause").status == 0)
        #expect(await podsd.pods("seek", "1:00").status == 0)
        #expect(await podsd.pods("seek", "-15").status == 0)
        #expect(await podsd.pods("seek", "+5").status == 0)
        #expect(await podsd.pods("speed", "1.5").status == 0)
        #expect(await podsd.pods("volume", "0.8").status == 0)
        let json = await podsd.pods("status", "--json")
        let status = try JSONDecoder().decode(PlayerStatus.self, from: Data(json.stdout.utf8))
        #expect(status.state == .paused)
        #expect(status.title == "Episode 1: Welcome to Pods")
        #expect(status.url == Fixtures.sampleMP3.absoluteString)
        #expect(abs(status.position - 50) < 0.2)
        #expect(abs((status.duration ?? 0) - 90) < 1)
        #expect(status.rate == 1.5 && status.volume == 0.8)
        #expect(await podsd.pods("toggle").status == 0)
        #expect(await podsd.pods("status").stdout.hasPrefix("Playing: Episode 1: Welcome to Pods"))
        #expect(await podsd.pods("stop").status == 0)
        #expect(try await podsd.client.status().state == .stopped)
        #expect(await podsd.pods("seek", "soon").status != 0)
        #expect(await podsd.pods("speed", "-1").status != 0)
    }

    @Test func badURIsGiveErrorsNotHangs() async throws {
        let podsd = try await PodsdProcess.start()
        let server = try LoopbackHTTPServer(files: ["/ok.ogg": Fixtures.sampleOgg])
        defer { server.stop() }
        let cases = [
            ("/nonexistent/episode.mp3", "not found"),
            (server.url("/missing.mp3"), "not found"),
            (Fixtures.packageRoot.appendingPathComponent("Package.swift").path, "text file"),
            ("ftp://example.com/a.mp3", "file, http and https"),
        ]
        for (uri, words) in cases {
            let result = await podsd.pods("play", uri)
            #expect(result.status == 1, "\(uri)")
            // An error, not a hang: a hang ends at the CLI's own wait for the player with "podsd did not
            // answer OpenUri in time", which names none of these. (A wall-clock bound here, in the
            // parallel suites, failed at 16.8 s on two loaded cores.)
            #expect(result.stderr.lowercased().contains(words), "\(uri): \(result.stderr)")
            #expect(!result.stderr.contains("did not answer"), "\(uri): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(try await podsd.client.status().state == .stopped)
        }
        #expect(await podsd.pods("play", server.url("/ok.ogg")).status == 0)
        #expect(try await podsd.client.status().state == .playing)
    }
}

@Suite(.timeLimit(.minutes(10))) struct InspectCommandTests {
    @Test func inspectsFilesAndHTTPFeeds() async throws {
        let feed = Fixtures.sharedTestData.appendingPathComponent("feeds/rsparser/atp.rss")
        let server = try LoopbackHTTPServer(files: ["/atp.rss": feed, "/page.html": Fixtures.packageRoot.appendingPathComponent("README.md")])
        defer { server.stop() }
        let pods = Fixtures.executable("pods")
        for source in [feed.path, feed.absoluteString, server.url("/atp.rss")] {
            let result = await Subprocess.run(pods, ["inspect", "--json", source])
            #expect(result.status == 0, "\(source): \(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect((object?["episodes"] as? [Any])?.count == 100, "\(source)")
        }
        let summary = await Subprocess.run(pods, ["inspect", server.url("/atp.rss")])
        #expect(summary.stdout.hasPrefix("Accidental Tech Podcast\nby Marco Arment"))
        let notFound = await Subprocess.run(pods, ["inspect", server.url("/nothing.rss")])
        #expect(notFound.status == 1 && notFound.stderr.contains("HTTP 404"))
        let notAFeed = await Subprocess.run(pods, ["inspect", server.url("/page.html")])
        #expect(notAFeed.status == 1 && notAFeed.stderr.contains("not a podcast feed"))
    }
}
