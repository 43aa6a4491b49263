import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// Before the machine sleeps, podsd pauses and keeps the place, through a
/// logind delay lock (never a block lock: the lid and the power button
/// still work). logind is a stand-in on the test's own system bus.
@Suite(.timeLimit(.minutes(10))) struct SleepGuardTests {
    @Test func itPausesSavesAndLetsTheSleepGoOnThenTakesANewLockOnWaking() async throws {
        let logind = try await LogindServer.start()
        let directory = try Fixtures.temporaryDirectory()
        let podsd = try await PodsdProcess.start(directory: directory, environment: logind.environment)
        try await waitFor(timeout: .seconds(5)) { logind.held.count == 1 }
        let lock = try #require(logind.held.first)
        #expect(lock.what == "sleep" && lock.mode == "delay" && lock.who == "Pods", "\(lock)")

        #expect(await podsd.pods("subscribe", Fixtures.data("sample-podcast.xml").absoluteString).status == 0)
        #expect(await podsd.pods("play", "1").status == 0)
        try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(10)) { $0 > 3.2 }

        let asleep = ContinuousClock.now
        try logind.prepareForSleep(true)
        try await waitFor(timeout: .seconds(5)) { logind.held.isEmpty }
        #expect(ContinuousClock.now - asleep < .seconds(2), "the sleep waited \(ContinuousClock.now - asleep)")
        #expect(await podsd.playerctl("status").stdout.trimmed == "Paused")
        let paused = try await podsd.client.status().position

        // Kept: a podsd killed right after (a sleep that never wakes) comes back at that place.
        kill(podsd.processIdentifier, SIGKILL)
        _ = await podsd.waitForExit(timeout: .seconds(10))
        let again = try await PodsdProcess.start(directory: directory, environment: logind.environment)
        try await waitFor(timeout: .seconds(10)) { await again.playerctl("status").stdout.trimmed == "Paused" }
        #expect(abs(try await again.client.status().position - paused) < 0.5)

        // Awake: still paused, and a new lock is held.
        try await waitFor(timeout: .seconds(5)) { logind.held.count == 1 }
        try logind.prepareForSleep(false)
        try await Task.sleep(for: .milliseconds(500))
        #expect(await again.playerctl("status").stdout.trimmed == "Paused")
        #expect(logind.held.count == 1)
        #expect(logind.all.allSatisfy { $0.mode == "delay" }, "never a block lock")
    }

    @Test func wakingTakesANewLock() async throws {
        let logind = try await LogindServer.start()
        let podsd = try await PodsdProcess.start(environment: logind.environment)
        try await waitFor(timeout: .seconds(5)) { logind.held.count == 1 }
        try logind.prepareForSleep(true)
        try await waitFor(timeout: .seconds(5)) { logind.held.isEmpty }
        try logind.prepareForSleep(false)
        try await waitFor(timeout: .seconds(5)) { logind.held.count == 1 }
        #expect(logind.all.count == 2)
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        #expect(logind.held.isEmpty, "the lock outlived podsd")
    }
}
