import Foundation
import PodsFeedParser
import PodsLibrary
import PodsPlayer
import PodsSession
import PodsTestSupport
import Testing

/// What follows a setting or the player, in the session podsd runs
/// (`Session`, assembled and run as podsd does; no bus, no podsd): each
/// consequence reaches what it concerns and nothing else, and what an
/// event reports is what was true when it happened.
@Suite(.timeLimit(.minutes(10))) struct SessionConsequenceTests {
    /// A new `refresh-interval` wakes the scheduler at once (it slept for
    /// an hour with refreshing off) and leaves the episode playing alone:
    /// the same load, the speed the listener chose, the place going on.
    @Test func aNewRefreshIntervalWakesTheSchedulerAndLeavesTheTrackAlone() async throws {
        // Long enough to play on at 1.75× while a loaded machine takes its time to refresh.
        let session = try await ListeningSession(seconds: 90, config: "refresh-interval = \"0\"\nspeed = 1.5\n")
        defer { session.stop() }
        let episode = session.episodes[0]
        try await session.player.play(episodeID: episode)
        try await session.controller.setRate(1.75)  // the listener's, over config.toml's
        let load = session.controller.latestLoad
        try await waitFor(timeout: .seconds(10)) { await session.controller.position() >= .seconds(1) }
        #expect(session.server.requests(for: "/feed.xml") == 0)
        let before = await session.controller.position()
        try await session.session.settings.set("refresh-interval", "2s", podcast: nil)
        try await waitFor(timeout: .seconds(15)) { session.server.requests(for: "/feed.xml") > 0 }
        let state = await session.controller.currentState()
        #expect(state.status == .playing && state.track?.episode?.episodeID == episode && state.rate == 1.75)
        #expect(session.controller.latestLoad == load, "the episode was loaded again")
        #expect(await session.controller.position() > before)
    }

    /// Podcast A's `speed` set while B's episode plays changes nothing of
    /// B's: it goes on at the speed the listener chose (a setting used to
    /// apply the whole player's settings to what played, config.toml's
    /// speed with them). B's own speed, set then, applies at once.
    @Test func anotherPodcastsSpeedLeavesThePlayingRateAlone() async throws {
        let session = try await ListeningSession(seconds: 20, config: "speed = 1.5\n")
        defer { session.stop() }
        var feed = Feed()
        feed.title = "Other"
        var other = Episode()
        other.guid = "other"
        other.title = "Other"
        other.enclosures = [Enclosure(url: session.server.url("/0.mp3"), type: "audio/mpeg", length: nil)]
        feed.episodes = [other]
        let a = try session.library.subscribe(feedURL: session.server.url("/other.xml"), feed: feed, etag: nil, lastModified: nil)
        let b = try session.library.episode(session.episodes[0]).podcastId
        try await session.player.play(episodeID: session.episodes[0])
        #expect(await session.controller.currentState().rate == 1.5)
        try await session.controller.setRate(1.75)
        try await session.session.settings.set("speed", "2.5", podcast: a.id)
        try await session.session.settings.set("skip-forward", "45", podcast: nil)
        await session.player.eventsHandled()
        try await Task.sleep(for: .milliseconds(300))  // what follows a setting runs on tasks of its own
        #expect(await session.controller.currentState().rate == 1.75)
        #expect(await session.player.skipIntervals().forward == 45)  // the player's own setting did apply
        try await session.session.settings.set("speed", "1.25", podcast: b)
        try await waitFor(timeout: .seconds(5)) { await session.controller.currentState().rate == 1.25 }
    }

    /// A pause whose events are handled only after the listener has played
    /// again and jumped keeps its own place, and the next stretch its own
    /// start: events carry what was true as they happened, and nothing that
    /// handles them asks the player where it is now. The library is held
    /// (another connection's write lock) so that its writes, and with them
    /// the handling of every event, wait until the player has moved on.
    @Test func aPauseHandledAfterALaterPlayAndSeekKeepsItsOwnPlace() async throws {
        let session = try await ListeningSession(seconds: 30)
        defer { session.stop() }
        let episode = session.episodes[0]
        try await session.player.play(episodeID: episode, at: .seconds(3))
        try await waitFor(timeout: .seconds(10)) { await session.controller.position() >= .seconds(4) }
        let lock = try await LibraryLock(session.library.directory, seconds: 3)
        await session.controller.pause()
        let paused = await session.controller.position()
        await session.controller.play()
        let resumedAt = await session.controller.position()  // smart rewind may have stepped back
        // The jump's target is taken from where play resumed, so a loaded machine that played further first still jumps ahead.
        let target = resumedAt + .seconds(8)
        try #require(target < .seconds(28), "play resumed at \(resumedAt), too near the end of the episode")
        await session.controller.jump(to: target)
        try await lock.released()
        await session.player.eventsHandled()
        let firstPause = try #require(try session.library.lastPause())
        #expect(abs(firstPause.position - paused / .seconds(1)) < 0.05, "kept \(firstPause.position) for a pause at \(paused)")
        try await Task.sleep(for: .milliseconds(500))
        await session.controller.pause()
        let pausedAgain = await session.controller.position()
        await session.player.eventsHandled()
        let secondPause = try #require(try session.library.lastPause())
        #expect(abs(secondPause.position - pausedAgain / .seconds(1)) < 0.05, "the last pause, at \(secondPause.position)")
        let play = try #require(try session.library.queuedActions(limit: 10).first { $0.episodeId == episode })
        // The second stretch began where playing resumed (before the jump), not where the player was when that was handled.
        let started = try #require(play.started)
        #expect(started <= Int((resumedAt / .seconds(1)).rounded(.down)) && started < Int((target / .seconds(1)).rounded(.down)),
                "started at \(started), resumed at \(resumedAt), jumped to \(target)")
        #expect(play.position == Int((pausedAgain / .seconds(1)).rounded(.down)))
    }
}

/// Another connection's write lock on a library file, held by a process of
/// its own for `seconds` (SQLite's own locking: every write of the
/// session's waits for it, reads go on).
struct LibraryLock {
    private let holder = Process()

    init(_ directory: URL, seconds: Int) async throws {
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", "import sqlite3, sys, time\ndb = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                            + "db.execute('BEGIN EXCLUSIVE')\nprint('held', flush=True)\ntime.sleep(\(seconds))\ndb.execute('COMMIT')",
                            directory.appendingPathComponent(Library.fileName).path]
        let line = try await Subprocess.firstLine(startingThe: holder, threadName: "pods.test.lock")
        guard line == "held" else { throw TestSupportError("the library's lock was not taken: \(line)") }
    }

    /// Waits for the lock to be let go.
    func released() async throws {
        try await waitFor(timeout: .seconds(20)) { !holder.isRunning }
    }
}
