import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// A server that says an episode is 2^60 bytes long (in `Content-Range`,
/// which the probe reads): podsd would size a sparse file by it (XFS and
/// Btrfs make one at once) and multiply it into a read-ahead past `Int64`.
/// The length is refused first, and the episode plays without the cache.
@Suite(.timeLimit(.minutes(10))) struct HostileLengthTests {
    @Test(arguments: [Int64(1) << 60, Int64.max, EpisodeLimits.justPastTheCache])
    func aLengthNoEpisodeHasStreamsWithoutTheCache(_ claimed: Int64) async throws {
        let server = try LoopbackHTTPServer(files: ["/a.mp3": Fixtures.sampleMP3])
        defer { server.stop() }
        server.setFault("/a.mp3", .claimsLength(claimed))
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        server.setFile("/feed.xml", sampleFeed([("g", "Long", 1, server.url("/a.mp3"))]))
        let podsd = try await PodsdProcess.start(directory: directory)
        #expect(await podsd.pods("subscribe", server.url("/feed.xml")).status == 0)
        #expect(await podsd.pods("play", "1").status == 0)
        try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(15)) { $0 > 0.3 }
        #expect(podsd.isRunning)
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        #expect(podsd.errorOutput().contains("the server says the file is \(claimed) bytes"), "\(podsd.errorOutput().suffix(800))")
        let largest = try FileManager.default.subpathsOfDirectory(atPath: directory.path).compactMap { path in
            (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(path).path))?[.size] as? Int64
        }.max() ?? 0
        #expect(largest < 1 << 30, "a file of \(largest) bytes was made")
    }
}

enum EpisodeLimits {
    /// One byte past what a cache takes (64 GiB).
    static let justPastTheCache: Int64 = (64 << 30) + 1
}
