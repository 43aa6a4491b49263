import Foundation
import PodsClient
import PodsTestSupport

/// The round trip of 1,000 queued actions through a sync server stand-in
/// (gpodder.net's semantics, on loopback): one podsd sends them (34 batches
/// of at most 30), a second podsd fetches and applies them. Beside each,
/// curl doing only the HTTP of the same work on one kept-alive connection
/// (the floor: no library, no matching, no D-Bus).
///
///     swift run -c release pods-sync-bench [--actions 1000] [--api gpodder|nextcloud]
@main
struct SyncBench {
    static func main() async throws {
        let arguments = CommandLine.arguments
        func option(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        }
        let count = Int(option("--actions") ?? "") ?? 1000
        let api = SyncServerStandIn.API(rawValue: option("--api") ?? "gpodder") ?? .gpodder
        let feeds = try LoopbackHTTPServer(files: [:])
        defer { feeds.stop() }
        var xml = #"<?xml version="1.0"?><rss version="2.0"><channel><title>Bench Show</title>"#
        for index in 0..<count {
            xml += "<item><title>Episode \(index)</title><guid>bench-\(index)</guid><itunes:duration xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">1800</itunes:duration>"
                + #"<enclosure url="\#(feeds.url("/audio/\(index).mp3"))" type="audio/mpeg"/></item>"#
        }
        feeds.setFile("/feed.xml", Data((xml + "</channel></rss>").utf8))
        let server = try SyncServerStandIn(api: api)
        defer { server.stop() }
        server.linkDevices(["sender", "receiver"])

        let sender = try await syncing(feeds.url("/feed.xml"), server, device: "sender")
        let receiver = try await syncing(feeds.url("/feed.xml"), server, device: "receiver")
        let library = LibraryClient(sender.client)
        let ids = try await library.episodesJSON().compactMap { ($0["id"] as? Int).map(Int64.init) }
        for id in ids { try await library.mark(episode: id, played: true) }
        FileHandle.standardError.write(Data("\(ids.count) actions queued; syncing…\n".utf8))

        let sendStart = ContinuousClock.now
        let sent = try await library.sync(full: false)
        let send = ContinuousClock.now - sendStart
        // gpodder.net hands an action out from the second after its timestamp, and
        // Pods spreads a big upload over a second per 480 actions (so pages move on).
        try await Task.sleep(for: .seconds(1.1 + Double(count / 480)))
        let applyStart = ContinuousClock.now
        let applied = try await LibraryClient(receiver.client).sync(full: false)
        let apply = ContinuousClock.now - applyStart

        // The floor: curl sends the same bodies, then fetches them, on one connection.
        let bodies = server.uploadedActionBodies  // the sender's, the only actions sent
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let endpoint = api == .gpodder ? server.url + "/api/2/episodes/alice.json" : server.url + "/index.php/apps/gpoddersync/episode_action/create"
        var curlArguments: [String] = ["-s", "-o", "/dev/null"]
        for (index, body) in bodies.enumerated() {
            let file = directory.appendingPathComponent("\(index).json")
            try body.write(to: file)
            if index > 0 { curlArguments.append("--next") }
            curlArguments += ["-s", "-o", "/dev/null", "-u", "alice:\(SyncWorldPassword.value)", "-H", "Content-Type: application/json",
                              "--data-binary", "@\(file.path)", endpoint]
        }
        let curlSendStart = ContinuousClock.now
        let curlSend = await Subprocess.run("curl", curlArguments, timeout: .seconds(120))
        let curlSendTime = ContinuousClock.now - curlSendStart
        let fetch = api == .gpodder ? server.url + "/api/2/episodes/alice.json?since=0" : server.url + "/index.php/apps/gpoddersync/episode_action?since=0"
        let curlFetchStart = ContinuousClock.now
        let curlFetch = await Subprocess.run("curl", ["-s", "-o", "/dev/null", "-u", "alice:\(SyncWorldPassword.value)", fetch], timeout: .seconds(120))
        let curlFetchTime = ContinuousClock.now - curlFetchStart
        guard curlSend.status == 0, curlFetch.status == 0 else { throw TestSupportError("curl failed: \(curlSend) \(curlFetch)") }

        print("\(api.rawValue) stand-in on loopback, \(ids.count) queued actions (\(bodies.count) batches)")
        print("| figure | Pods | curl (HTTP only) | Pods/curl |")
        print("|---|---|---|---|")
        print(row("send: `pods sync` with the actions queued (uploaded \(sent.stringKeyedDictionary?["uploaded"]?.int64Value ?? 0))", send, curlSendTime))
        print(row("receive: `pods sync` on the other library (applied \(applied.stringKeyedDictionary?["applied"]?.int64Value ?? 0))", apply, curlFetchTime))
        print(row("round trip", send + apply, curlSendTime + curlFetchTime))
        _ = await sender.signal(SIGTERM)
        _ = await receiver.signal(SIGTERM)
    }

    /// A podsd subscribed to `feed`, syncing with `server` as `device` (the first sync done).
    static func syncing(_ feed: String, _ server: SyncServerStandIn, device: String) async throws -> PodsdProcess {
        let podsd = try await PodsdProcess.start()
        _ = try await LibraryClient(podsd.client).subscribe(feed)
        _ = try await LibraryClient(podsd.client).setupSync(server: server.url, user: "alice", device: device, api: server.api.rawValue,
                                                            password: SyncWorldPassword.value)
        _ = try await LibraryClient(podsd.client).sync(full: false)
        return podsd
    }

    static func row(_ name: String, _ pods: Duration, _ peer: Duration) -> String {
        let p = pods / .milliseconds(1), c = peer / .milliseconds(1)
        return "| \(name) | \(String(format: "%.0f ms", p)) | \(String(format: "%.0f ms", c)) | \(String(format: "%.1f", p / c)) |"
    }
}

enum SyncWorldPassword { static let value = "s3cret-app-pw" }
