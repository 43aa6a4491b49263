import Foundation
import PodsClient
import PodsDBus
import PodsTestSupport
import Testing

/// `pods config`: the player's settings in config.toml, a podcast's own in
/// the library, and what they do to playback.
@Suite(.timeLimit(.minutes(10))) struct SettingsServiceTests {
    static func json(_ result: CommandResult) throws -> Any { try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) }

    static func position(_ podsd: PodsdProcess) async throws -> Double {
        Double(try await podsd.client.property("Position").int64Value ?? 0) / 1_000_000
    }

    /// Two podcasts on the sample MP3 (90 s): "Fast Show" and "Slow Show".
    static func start(_ extraArguments: [String] = [], directory: URL? = nil,
                      audioSink: String? = "fakesink sync=true") async throws -> (PodsdProcess, URL) {
        let directory = try directory ?? Fixtures.temporaryDirectory()
        let mp3 = Fixtures.sampleMP3.absoluteString
        let fast = directory.appendingPathComponent("fast.xml"), slow = directory.appendingPathComponent("slow.xml")
        try sampleFeed([("f1", "Fast one", 1, mp3), ("f2", "Fast two", 2, mp3)], title: "Fast Show").write(to: fast)
        try sampleFeed([("s1", "Slow one", 1, mp3)], title: "Slow Show").write(to: slow)
        let podsd = try await PodsdProcess.start(extraArguments: extraArguments, directory: directory, audioSink: audioSink)
        for feed in [fast, slow] { #expect(await podsd.pods("subscribe", feed.absoluteString).status == 0) }
        return (podsd, directory)
    }

    static func episodeID(_ podsd: PodsdProcess, _ title: String) async throws -> String {
        let episodes = try await LibraryClient(podsd.client).episodesJSON()
        return String(try #require(episodes.first { $0["title"] as? String == title }?["id"] as? Int))
    }

    @Test func listSetAndReadBackInTheFileAndPerPodcast() async throws {
        let (podsd, directory) = try await Self.start()
        let all = try #require(try Self.json(await podsd.pods("config", "--json")) as? [[String: Any]])
        #expect(all.map { $0["key"] as? String } == [
            "speed", "skip-forward", "skip-back", "skip-intro", "skip-outro", "smart-rewind", "trim-silence", "loudness", "loudness-target", "preferred-format", "next-action", "complete-within",
            "skip-chapters", "ignore-episodes", "min-duration", "episode-types", "keep-downloads", "delete-played-after", "auto-next", "refresh-interval", "audio-sink", "pause-on-output-loss", "cache-budget", "metered-downloads", "notify", "sync", "sync-delay", "search-itunes-url", "search-podcastindex-url", "podcastindex-key", "podcastindex-secret",
            "ui-artwork"])
        // The tests' podsd runs with --refresh-interval 0 and --audio-sink, which win over the file.
        #expect(all.filter { !["refresh-interval", "audio-sink"].contains($0["key"] as? String) }
            .allSatisfy { $0["source"] as? String == "default" && $0["value"] as? String == $0["default"] as? String })
        let interval = all.first { $0["key"] as? String == "refresh-interval" }
        #expect(interval?["value"] as? String == "0" && interval?["source"] as? String == "config")
        #expect(Set(all[0].keys) == ["key", "value", "default", "source", "help", "secret"])
        // Only a secret says so; its value is never printed back.
        #expect(all.filter { $0["secret"] as? Bool == true }.compactMap { $0["key"] as? String } == ["podcastindex-secret"])

        #expect(await podsd.pods("config", "skip-forward", "20").status == 0)
        #expect(await podsd.pods("config", "complete-within", "5%").status == 0)
        #expect(await podsd.pods("config", "skip-forward").stdout == "20\n")
        let file = try String(contentsOf: directory.appendingPathComponent("config.toml"), encoding: .utf8)
        #expect(file.contains("\nskip-forward = 20\n") && file.contains("\ncomplete-within = \"5%\"\n"))
        #expect(file.contains("# How far `pods forward` skips"))

        #expect(await podsd.pods("config", "--podcast", "Fast", "skip-forward", "45").status == 0)
        let fast = try #require(try Self.json(await podsd.pods("config", "--podcast", "Fast", "skip-forward", "--json")) as? [String: Any])
        #expect(fast["value"] as? String == "45" && fast["source"] as? String == "podcast")
        let slow = try #require(try Self.json(await podsd.pods("config", "--podcast", "Slow", "skip-forward", "--json")) as? [String: Any])
        #expect(slow["value"] as? String == "20" && slow["source"] as? String == "config")
        #expect(await podsd.pods("config", "--podcast", "Fast", "skip-forward", "--unset").status == 0)
        #expect(await podsd.pods("config", "--podcast", "Fast", "skip-forward").stdout == "20\n")

        // Bad input: one line each, nothing written.
        for (arguments, message) in [
            (["config", "speed", "9"], "pods: speed takes a number of times from 0.5 to 3, not '9'"),
            (["config", "volume", "1"], "pods: there is no setting 'volume'"),
            (["config", "--podcast", "Nothing", "speed", "1"], "pods: no podcast is called Nothing"),
            (["config", "--podcast", "Fast", "auto-next", "false"], "pods: auto-next is set for the whole player, not per podcast"),
            (["config", "next-action", "track"], "pods: next-action takes 'chapter' or 'episode', not 'track'"),
        ] {
            let result = await podsd.run(Fixtures.executable("pods"), arguments)
            #expect(result.status == 1 && result.stderr.hasPrefix(message) && result.stderr.split(separator: "\n").count == 1,
                    "\(arguments): \(result)")
        }
        #expect(try String(contentsOf: directory.appendingPathComponent("config.toml"), encoding: .utf8) == file)
        let tooFast = await podsd.run(Fixtures.executable("pods"), ["speed", "9"])
        #expect(tooFast.status != 0 && tooFast.stderr.hasPrefix("Error: the speed is 0.5 to 3.0"), "\(tooFast)")
        #expect(try await podsd.client.property("Rate") == .double(1))
        #expect(podsd.isRunning)
    }

    @Test func aPodcastsSpeedIntroAndSkipsApplyWhenItsEpisodeLoads() async throws {
        let (podsd, _) = try await Self.start()
        #expect(await podsd.pods("config", "--podcast", "Fast", "speed", "2").status == 0)
        #expect(await podsd.pods("config", "--podcast", "Fast", "skip-intro", "12").status == 0)
        #expect(await podsd.pods("config", "skip-back", "4").status == 0)
        #expect(await podsd.pods("play", try await Self.episodeID(podsd, "Fast one")).status == 0)
        #expect(try await podsd.client.property("Rate") == .double(2))
        let start = try await Self.position(podsd)
        #expect(start >= 12 && start < 14, "a fresh episode starts past its intro: \(start)")
        try await podsd.client.pause()
        try await podsd.client.setPosition(.seconds(40))
        #expect(await podsd.pods("forward").status == 0)
        #expect(abs(try await Self.position(podsd) - 70) < 0.2)
        #expect(await podsd.pods("back").status == 0)
        #expect(abs(try await Self.position(podsd) - 66) < 0.2)
        #expect(await podsd.pods("back", "16").status == 0)
        #expect(abs(try await Self.position(podsd) - 50) < 0.2)
        // Another podcast's episode: the player's speed is back (nothing set: the one in use stays).
        #expect(await podsd.pods("config", "--podcast", "Slow", "speed", "1").status == 0)
        #expect(await podsd.pods("play", try await Self.episodeID(podsd, "Slow one")).status == 0)
        #expect(try await podsd.client.property("Rate") == .double(1))
        #expect(try await Self.position(podsd) < 3, "no intro skipped for Slow")
    }

    @Test func skipOutroEndsTheEpisodeEarlyAndCountsItPlayed() async throws {
        let (podsd, _) = try await Self.start(["--no-auto-next"])
        #expect(await podsd.pods("config", "--podcast", "Slow", "skip-outro", "80").status == 0)
        let id = try await Self.episodeID(podsd, "Slow one")
        let started = ContinuousClock.now
        #expect(await podsd.pods("play", id).status == 0)  // 90 s, the last 80 left out: it ends after 10 s
        try await waitFor(timeout: .seconds(20)) { await podsd.playerctl("status").stdout.trimmed == "Stopped" }
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        // Ten seconds of a 90 s episode (more on a loaded machine, which starts slower), never all of it.
        #expect(elapsed > 9.5 && elapsed < 20, "ended after \(elapsed) s")
        let episodes = try await LibraryClient(podsd.client).episodesJSON()
        #expect(episodes.first { String($0["id"] as? Int ?? 0) == id }?["completed"] as? Bool == true)
    }

    @Test func completeWithinAShareOfTheEpisode() async throws {
        let (podsd, _) = try await Self.start()
        #expect(await podsd.pods("config", "--podcast", "Slow", "complete-within", "25%").status == 0)
        let id = try await Self.episodeID(podsd, "Slow one")
        #expect(await podsd.pods("play", id).status == 0)
        try await podsd.client.setPosition(.seconds(60))  // 30 s of 90 left: a third, not yet
        try await podsd.client.pause()
        let episode = try await LibraryClient(podsd.client).episodesJSON().first { String($0["id"] as? Int ?? 0) == id }
        #expect(episode?["completed"] as? Bool == false)
        try await podsd.client.setPosition(.seconds(70))  // 20 s left: under a quarter
        try await waitFor {
            let episodes = (try? await LibraryClient(podsd.client).episodesJSON()) ?? []
            return episodes.first { String($0["id"] as? Int ?? 0) == id }?["completed"] as? Bool == true
        }
    }

    @Test func anEditedFileAppliesWithoutARestartAndABrokenEditKeepsTheLastGoodSettings() async throws {
        let (podsd, directory) = try await Self.start()
        let file = directory.appendingPathComponent("config.toml")
        #expect(await podsd.pods("play", try await Self.episodeID(podsd, "Slow one")).status == 0)
        // An editor saves the file (a new file renamed over the old one).
        func save(_ text: String) throws {
            let partial = directory.appendingPathComponent(".config.toml.swp")
            try Data(text.utf8).write(to: partial)
            guard rename(partial.path, file.path) == 0 else { throw TestSupportError("rename failed") }
        }
        try save("speed = 1.5\nskip-forward = 42\n")
        try await waitFor { await podsd.pods("config", "skip-forward").stdout == "42\n" }
        try await waitFor { (try? await podsd.client.property("Rate")) == .double(1.5) }
        try save("speed = 1.5\nskip-forward = \"far\"\n")
        try await Task.sleep(for: .milliseconds(600))
        #expect(await podsd.pods("config", "skip-forward").stdout == "42\n", "the last good settings stay")
        try save("skip-forward = 15\n")
        try await waitFor { await podsd.pods("config", "skip-forward").stdout == "15\n" }
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        let log = podsd.errorOutput()
        #expect(log.contains("config.toml line 2: skip-forward takes a number of seconds from 1 to 600, not 'far'; keeping the settings read before"),
                "\(log)")
    }

    @Test func theAudioSinkAndTheCacheBudgetFromTheFile() async throws {
        let directory = try Fixtures.temporaryDirectory()
        try Data("audio-sink = \"fakesink sync=true\"\n".utf8).write(to: directory.appendingPathComponent("config.toml"))
        let (podsd, _) = try await Self.start(directory: directory, audioSink: nil)
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)
        try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(10)) { $0 > 0.5 }
        // A sink GStreamer cannot make is refused, and nothing is written.
        let refused = await podsd.run(Fixtures.executable("pods"), ["config", "audio-sink", "nosuchsinkelement"])
        #expect(refused.status == 1 && refused.stderr.contains("nosuchsinkelement") && refused.stderr.split(separator: "\n").count == 1,
                "\(refused)")
        #expect(await podsd.pods("config", "audio-sink").stdout == "fakesink sync=true\n")
        // Over the bus, one audio sink by name (and a device): no pipeline, no other element.
        let copied = directory.appendingPathComponent("copied")
        for description in ["fakesink sync=true name=other", "filesink location=\(copied.path)",
                            "fakesink filesrc location=/etc/passwd ! filesink location=\(copied.path)",
                            "pulsesink server=elsewhere", "autoaudiosink device=x y", "pulsesink device=\"a b\"",
                            // ALSA's stock file and tee PCMs truncate and write the file they name; a path names a file.
                            "alsasink device=file:\(copied.path)", "alsasink device=file:copied", "alsasink device=tee:\(copied.path)",
                            "alsasink device=plug:file:copied", "alsasink device=file", "osssink device=/dev/dsp1",
                            "alsasink device=hw:0/../x"] {
            let result = await podsd.run(Fixtures.executable("pods"), ["config", "audio-sink", description])
            #expect(result.status == 1 && result.stderr.split(separator: "\n").count == 1, "\(description): \(result)")
        }
        #expect(await podsd.pods("config", "audio-sink").stdout == "fakesink sync=true\n")
        #expect(!FileManager.default.fileExists(atPath: copied.path))
        // A device by its name is taken.
        #expect(await podsd.pods("config", "audio-sink", "alsasink device=plughw:CARD=PCH,DEV=0").status == 0)
        #expect(await podsd.pods("config", "audio-sink").stdout == "alsasink device=plughw:CARD=PCH,DEV=0\n")
        // The file is the user's own: a description there is taken, and the next track plays through it.
        try Data("audio-sink = \"fakesink sync=true name=other\"\n".utf8).write(to: directory.appendingPathComponent("config.toml"))
        try await waitFor { await podsd.pods("config", "audio-sink").stdout == "fakesink sync=true name=other\n" }
        try await podsd.client.open(uri: Fixtures.sampleOgg.absoluteString)
        try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(10)) { $0 > 0.5 }

        // pods storage --budget keeps the budget in config.toml; the file's budget is the cache's.
        #expect(await podsd.pods("storage", "--budget", "500M").status == 0)
        #expect(await podsd.pods("config", "cache-budget").stdout == "500000000\n")
        #expect(await podsd.pods("config", "cache-budget", "1G").status == 0)
        let storage = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("storage", "--json").stdout.utf8))
            as? [String: Any])
        #expect(storage["budget"] as? Int == 1_000_000_000)
    }

    @Test func aBrokenConfigFileIsOneLogLineAndTheDefaultsHold() async throws {
        let directory = try Fixtures.temporaryDirectory()
        try Data("speed = 1.5\nskip-back = \"lots\"\n".utf8).write(to: directory.appendingPathComponent("config.toml"))
        let (podsd, _) = try await Self.start(directory: directory)
        #expect(await podsd.pods("config", "skip-back").stdout == "10\n")
        // Writing a value is refused while the file does not read back: the file stays as the person left it.
        let result = await podsd.pods("config", "skip-forward", "20")
        #expect(result.status == 1 && result.stderr.contains("line 2"))
        #expect(try String(contentsOf: directory.appendingPathComponent("config.toml"), encoding: .utf8)
                == "speed = 1.5\nskip-back = \"lots\"\n")
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        let log = podsd.errorOutput()
        #expect(log.contains("config.toml line 2: skip-back takes a number of seconds from 1 to 600, not 'lots'"), "\(log)")
    }
}
