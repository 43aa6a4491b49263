import Foundation
import PodsHTTP
import PodsTestSupport
import Synchronization
import Testing

/// Real requests to a loopback server the test starts.
@Suite(.timeLimit(.minutes(10))) struct HTTPClientTests {
    static let feed = Fixtures.sharedTestData.appendingPathComponent("feeds/rsparser/theomnishow.rss")

    @Test func getsABody() async throws {
        let server = try LoopbackHTTPServer(files: ["/feed.xml": Self.feed])
        defer { server.stop() }
        let response = try await HTTPClient().get(server.url("/feed.xml"))
        #expect(response.status == 200)
        #expect(response.body == (try Data(contentsOf: Self.feed)))
        #expect(response.finalURL == server.url("/feed.xml"))
        #expect(response.permanentURL == nil)
    }

    @Test func permanentRedirectsAreReportedTemporaryOnesAreNot() async throws {
        let server = try LoopbackHTTPServer(files: ["/new.xml": Self.feed], redirects: [
            "/old.xml": (301, "/new.xml"), "/moved.xml": (308, "/old.xml"), "/temp.xml": (302, "/new.xml"),
        ])
        defer { server.stop() }
        let permanent = try await HTTPClient().get(server.url("/moved.xml"))
        #expect(permanent.permanentURL == server.url("/new.xml"))
        let temporary = try await HTTPClient().get(server.url("/temp.xml"))
        #expect(temporary.status == 200 && temporary.permanentURL == nil)
    }

    @Test func failuresAreClearErrors() async throws {
        let server = try LoopbackHTTPServer(files: ["/feed.xml": Self.feed], redirects: ["/loop": (302, "/loop")])
        defer { server.stop() }
        await expect(.status, try await HTTPClient().get(server.url("/missing.xml")))
        var small = HTTPClient.Options()
        small.maximumBytes = 1000
        await expect(.tooLarge, try await HTTPClient(options: small).get(server.url("/feed.xml")))
        await expect(.other, try await HTTPClient().get(server.url("/loop")))
        await expect(.invalidURL, try await HTTPClient().get("ftp://127.0.0.1/feed.xml"))
        let refusing = try RefusingPort()
        let port = refusing.port
        defer { withExtendedLifetime(refusing) {} }
        await expect(.unreachable, try await HTTPClient().get("http://127.0.0.1:\(port)/feed.xml"))
    }

    private func expect(_ code: HTTPError.Code, _ body: @autoclosure () async throws(HTTPError) -> HTTPResponse,
                        sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            _ = try await body()
            Issue.record("expected \(code), got a response", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        }
    }
}

/// Every GET of the process runs on one libcurl multi loop.
@Suite(.timeLimit(.minutes(10))) struct TransferLoopTests {
    @Test func connectionsAreKeptAliveAndReused() async throws {
        let server = try LoopbackHTTPServer(files: ["/feed.xml": HTTPClientTests.feed], keepAlive: true)
        defer { server.stop() }
        let expected = try Data(contentsOf: HTTPClientTests.feed)
        for _ in 0..<20 {
            let response = try await HTTPClient().get(server.url("/feed.xml"))
            #expect(response.status == 200 && response.body == expected)
        }
        #expect(server.requests(for: "/feed.xml") == 20)
        // One connection, or two if the rest of the suite crowded it out of the idle ones; 20 without reuse.
        #expect(server.connectionsAccepted <= 2, "\(server.connectionsAccepted) connections for 20 requests one after another")
    }

    @Test func manyAtOnceRunSideBySideAndAFailureStaysItsOwn() async throws {
        let server = try LoopbackHTTPServer(files: ["/feed.xml": HTTPClientTests.feed], keepAlive: true)
        defer { server.stop() }
        server.setDelay("/feed.xml", .milliseconds(300))
        let refusing = try RefusingPort()
        let deadPort = refusing.port
        defer { withExtendedLifetime(refusing) {} }
        let start = ContinuousClock.now
        let results = await withTaskGroup(of: Result<HTTPResponse, HTTPError>.self) { group in
            for index in 0..<30 {
                let url = index == 7 ? "http://127.0.0.1:\(deadPort)/feed.xml" : server.url("/feed.xml")
                group.addTask {
                    do throws(HTTPError) { return .success(try await HTTPClient().get(url)) } catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let took = ContinuousClock.now - start
        #expect(results.filter { (try? $0.get())?.status == 200 }.count == 29)
        #expect(results.filter { if case .failure(let error) = $0 { error.code == .unreachable } else { false } }.count == 1)
        // Side by side at the server, six at a time (the per-host limit of every transfer), whatever
        // else the test process is doing meanwhile.
        #expect(server.mostRequestsAtOnce >= 4 && server.mostRequestsAtOnce <= 6, "at most \(server.mostRequestsAtOnce) at once; all took \(took)")
    }
}

@Suite(.timeLimit(.minutes(10))) struct SpilledBodyTests {
    @Test func aBodyPastTheThresholdGoesToAFileAndASmallOneStaysInMemory() async throws {
        let server = try LoopbackHTTPServer(files: ["/feed.xml": HTTPClientTests.feed])
        defer { server.stop() }
        let expected = try Data(contentsOf: HTTPClientTests.feed)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = HTTPClient.Options()
        options.spillDirectory = directory.path
        options.spillThreshold = expected.count / 3
        let spilled = try await HTTPClient(options: options).get(server.url("/feed.xml"))
        let file = try #require(spilled.bodyFile)
        #expect(spilled.body.isEmpty && FileManager.default.contents(atPath: file) == expected)
        #expect(file.hasPrefix(directory.path))

        options.spillThreshold = expected.count + 1
        let kept = try await HTTPClient(options: options).get(server.url("/feed.xml"))
        #expect(kept.bodyFile == nil && kept.body == expected)

        options.spillThreshold = 10
        options.spillDirectory = directory.appendingPathComponent("missing").path
        await #expect(throws: HTTPError.self) { _ = try await HTTPClient(options: options).get(server.url("/feed.xml")) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)  // only the first spill, ours to remove
    }
}

/// Every transfer of the process, the loop's and the caches' streaming
/// ones alike, starts through one scheduler with a global and a
/// per-server limit; what playback waits for goes ahead of the rest.
@Suite(.timeLimit(.minutes(10))) struct TransferSchedulerTests {
    @Test func theLimitsHoldAndUrgentTransfersHaveRoomKept() {
        let scheduler = TransferScheduler(backgroundLimit: 4, backgroundPerServer: 2, keptForUrgent: 1)
        #expect(scheduler.tryStart(server: "a", priority: .background))
        #expect(scheduler.tryStart(server: "a", priority: .background))
        #expect(!scheduler.tryStart(server: "a", priority: .background))  // two per server
        #expect(scheduler.tryStart(server: "a", priority: .urgent))  // one more per server for what playback waits on
        #expect(!scheduler.tryStart(server: "a", priority: .urgent))
        #expect(scheduler.tryStart(server: "b", priority: .background))
        #expect(!scheduler.tryStart(server: "c", priority: .background))  // four in all
        #expect(scheduler.tryStart(server: "c", priority: .urgent))  // five with the one kept
        #expect(!scheduler.tryStart(server: "d", priority: .urgent))
        scheduler.end(server: "a")
        #expect(scheduler.runningCount() == 4 && scheduler.runningCount(server: "a") == 2)
        #expect(!scheduler.tryStart(server: "d", priority: .background))  // still four running
        #expect(scheduler.tryStart(server: "d", priority: .urgent))
        // A waiter that gives up is told so, and takes nothing.
        let cancelled = scheduler.start(server: "e", priority: .urgent, isCancelled: { true })
        #expect(!cancelled && scheduler.runningCount(server: "e") == 0)
    }

    @Test func feedsAndEpisodeRangesShareOnePerServerLimitAndPlaybackGoesFirst() async throws {
        let episode = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        let feed = try Data(contentsOf: HTTPClientTests.feed)
        let server = try LoopbackHTTPServer(files: [:], keepAlive: true)
        let gate = DispatchSemaphore(value: 0)
        defer {
            for _ in 0..<9 { gate.signal() }
            server.stop()
        }
        // Background answers wait at the server until the test opens the gate.
        server.setHandler("/feed.xml") { _ in
            gate.wait()
            return .init(type: "application/rss+xml", body: feed)
        }
        server.setHandler("/slow.mp3") { _ in
            gate.wait()
            return .init(type: "audio/mpeg", body: Data(count: 1000))
        }
        server.setFile("/playing.mp3", episode, type: "audio/mpeg")
        let limit = TransferScheduler.shared.backgroundPerServer
        // Downloads' range requests on threads of their own, as the caches make them...
        let downloadsDone = Mutex(0)
        for index in 0..<3 {
            Thread {
                _ = try? HTTPClient().streamingGet(server.url("/slow.mp3"), range: Int64(index * 1000)..<Int64(index * 1000 + 1000),
                                                   head: { _ in true }, body: { _ in true })
                downloadsDone.withLock { $0 += 1 }
            }.start()
        }
        // ...and a refresh's feeds from the same server: six at once in all, the rest wait.
        let feeds = Task {
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<6 { group.addTask { (try? await HTTPClient().get(server.url("/feed.xml")))?.status ?? 0 } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        let clock = ContinuousClock()
        let waitUntil = clock.now + .seconds(60)
        while server.mostRequestsAtOnce < limit, clock.now < waitUntil { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(200))  // room for a seventh background transfer to show, were it let through
        #expect(server.mostRequestsAtOnce == limit)
        // With six background transfers held at the server, playback's bytes still come: a slot is
        // kept for them (without it, this read would wait for the gate).
        let received = Mutex(0)
        Thread {
            _ = try? HTTPClient().streamingGet(server.url("/playing.mp3"), range: 0..<65_536, head: { _ in true },
                                               body: { chunk in received.withLock { $0 += chunk.count }; return true }, priority: .urgent)
        }.start()
        while received.withLock({ $0 }) < 65_536, clock.now < waitUntil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(received.withLock { $0 } == 65_536)
        #expect(server.mostRequestsAtOnce == limit + 1, "\(server.mostRequestsAtOnce) at once")
        for _ in 0..<9 { gate.signal() }
        let statuses = await feeds.value
        #expect(statuses.count == 6 && statuses.allSatisfy { $0 == 200 })
        while downloadsDone.withLock({ $0 }) < 3, clock.now < waitUntil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(downloadsDone.withLock { $0 } == 3)
        // Never more than the per-server limit and the one kept for playback.
        #expect(server.mostRequestsAtOnce == limit + 1, "\(server.mostRequestsAtOnce) at once")
        #expect(TransferScheduler.shared.runningCount(server: HTTPClient.origin(of: server.url("/")) ?? "") == 0)
    }
}
