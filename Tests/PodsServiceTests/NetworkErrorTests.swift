import Foundation
import PodsTestSupport
import Testing

/// A stream that cannot be read says why, in words a listener can act on,
/// whichever GStreamer element posts first and whichever libsoup the
/// desktop has (the suite runs with libsoup 3 installed, as GNOME has it).
@Suite(.timeLimit(.minutes(10))) struct NetworkErrorTests {
    @Test func eachNetworkFailureSaysWhatItIs() async throws {
        let server = try LoopbackHTTPServer(files: ["/episode.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.hold("/silent.mp3")
        defer { server.release("/silent.mp3") }
        let refusing = try RefusingPort()  // nothing listens there
        let deadPort = refusing.port
        defer { withExtendedLifetime(refusing) {} }
        let untrusted = try await SelfSignedTLSServer.start()
        let podsd = try await PodsdProcess.start()
        let cases: [(url: String, says: String)] = [
            ("http://127.0.0.1:\(deadPort)/episode.mp3", "the server refused the connection"),
            ("http://no-such-host.invalid/episode.mp3", "the server's name could not be resolved (DNS"),
            // A certificate nobody vouches for: the handshake fails.
            (untrusted.url("/episode.mp3"), "the secure connection (TLS) failed"),
            (server.url("/missing.mp3"), "the server answered HTTP 404: not found"),
        ]
        for (url, says) in cases {
            let start = ContinuousClock.now
            let result = await podsd.run(Fixtures.executable("pods"), ["play", url], timeout: .seconds(40))
            #expect(result.status == 1 && result.stderr.contains(says) && result.stderr.split(separator: "\n").count == 1,
                    "\(url): \(result)")
            #expect(ContinuousClock.now - start < .seconds(25), "\(url)")
        }
        // A server that accepts and never answers: `pods play` returns while it is still loading
        // (after its open limit), and `pods status` says why it stopped once the source gives up.
        let silent = await podsd.run(Fixtures.executable("pods"), ["play", server.url("/silent.mp3")], timeout: .seconds(40))
        #expect(silent.status == 0, "\(silent)")
        try await waitFor(timeout: .seconds(40)) {
            await podsd.pods("status").stdout.contains("stopped by an error: the server did not answer in time")
        }
        // The server that works plays, and podsd went through it all.
        #expect(await podsd.pods("play", server.url("/episode.mp3")).status == 0)
        #expect(podsd.isRunning)
    }
}
