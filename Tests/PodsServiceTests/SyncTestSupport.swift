import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// Two feeds with an audio file of each episode's own (so enclosure URLs
/// tell episodes apart), served beside a sync server stand-in.
struct SyncWorld {
    let feeds: LoopbackHTTPServer
    let server: SyncServerStandIn

    static let password = "s3cret-app-pw"

    init(api: SyncServerStandIn.API, episodesOfA: Int = 3) throws {
        var files: [String: URL] = [:]
        for index in 1...max(episodesOfA, 3) { files["/a\(index).mp3"] = Fixtures.sampleMP3 }
        for index in 1...2 { files["/b\(index).mp3"] = Fixtures.sampleMP3 }
        let feeds = try LoopbackHTTPServer(files: files)
        let showA = (1...episodesOfA).map { ("a\($0)-guid", "A\($0)", 1 + $0 % 28, feeds.url("/a\($0).mp3")) }
        feeds.setFile("/show-a.xml", sampleFeed(showA, title: "Show A"))
        feeds.setFile("/show-b.xml", sampleFeed([("b1-guid", "B1", 1, feeds.url("/b1.mp3")), ("b2-guid", "B2", 2, feeds.url("/b2.mp3"))],
                                                title: "Show B"))
        self.feeds = feeds
        server = try SyncServerStandIn(api: api)
    }

    var showA: String { feeds.url("/show-a.xml") }
    var showB: String { feeds.url("/show-b.xml") }

    /// gpodder.net hands out an action from the second after its timestamp
    /// (`< now`): a device syncing in the same second sees it next time.
    func settle() async { try? await Task.sleep(for: .seconds(1.1)) }

    func stop() {
        feeds.stop()
        server.stop()
    }

    /// `pods sync setup` for `podsd` (gpodder: as `device`).
    @discardableResult
    func setup(_ podsd: PodsdProcess, device: String, password: String = password) async -> CommandResult {
        await podsd.run(Fixtures.executable("pods"), ["sync", "setup", server.url, "--user", "alice", "--device", device,
                                                      "--api", server.api.rawValue, "--password-stdin"], input: password + "\n")
    }
}

/// `pods sync --json`, parsed.
func syncJSON(_ podsd: PodsdProcess, full: Bool = false) async throws -> [String: Any] {
    let result = await podsd.run(Fixtures.executable("pods"), ["sync", "--json"] + (full ? ["--full"] : []), timeout: .seconds(120))
    return try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
}

/// The library's episodes by guid.
func episodesByGuid(_ podsd: PodsdProcess) async throws -> [String: [String: Any]] {
    let episodes = try await LibraryClient(podsd.client).episodesJSON()
    return Dictionary(episodes.map { ($0["guid"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
}

func episodeID(_ podsd: PodsdProcess, _ guid: String) async throws -> Int64 {
    let episodes = try await episodesByGuid(podsd)
    return Int64(try #require(episodes[guid]?["id"] as? Int, "no episode \(guid)"))
}

/// Plays `guid` from `position`, a moment, then pauses (which queues a play
/// action); the whole second it was paused at, as its library keeps it (on
/// a loaded machine a second or two past `position`).
@discardableResult
func listen(_ podsd: PodsdProcess, _ guid: String, at position: Int) async throws -> Int {
    let id = try await episodeID(podsd, guid)
    try await LibraryClient(podsd.client).play(episode: id)
    try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(10)) { $0 >= 0 }
    try await podsd.client.setPosition(.seconds(position))
    try await ListeningScenario.waitForPosition(podsd.client, timeout: .seconds(10)) { $0 >= Double(position) }
    try await podsd.client.pause()
    // The pause reaches the library's event stream before anything the test does next.
    try await Task.sleep(for: .milliseconds(300))
    return Int(try await episodesByGuid(podsd)[guid]?["position"] as? Double ?? -1)
}

/// A podsd that does not sync by itself after pauses (the tests sync when they choose).
func syncingPodsd(environment: [String: String] = [:]) async throws -> PodsdProcess {
    let directory = try Fixtures.temporaryDirectory()
    try "sync-delay = 0\n".write(to: directory.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
    return try await PodsdProcess.start(directory: directory, environment: environment)
}

/// A podsd subscribed to `feeds`, syncing with the world's server as `device`, its first sync done.
func joined(_ world: SyncWorld, _ feeds: [String], device: String) async throws -> PodsdProcess {
    let podsd = try await syncingPodsd()
    for feed in feeds { #expect(await podsd.pods("subscribe", feed).status == 0) }
    #expect(await world.setup(podsd, device: device).status == 0)
    _ = try await syncJSON(podsd)
    return podsd
}
