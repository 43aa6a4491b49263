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
