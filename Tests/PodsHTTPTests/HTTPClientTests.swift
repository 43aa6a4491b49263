import Foundation
import PodsHTTP
import PodsTestSupport
import Testing

/// Real requests to a loopback server the test starts.
@Suite struct HTTPClientTests {
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
        let closed = try LoopbackHTTPServer(files: [:])
        let port = closed.port
        closed.stop()
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
@Suite struct TransferLoopTests {
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
        let closed = try LoopbackHTTPServer(files: [:])
        let deadPort = closed.port
        closed.stop()
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

@Suite struct SpilledBodyTests {
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
