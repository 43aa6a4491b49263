import Foundation
import PodsSync
import Testing

@Suite(.timeLimit(.minutes(10))) struct SyncAPITests {
    @Test func bothAPIsPaths() {
        let gpodder = SyncEndpoints(api: .gpodder, server: "https://gpodder.example/", user: "al ice", device: "pods-box")
        #expect(gpodder.check(now: Date()).url == "https://gpodder.example/api/2/auth/al%20ice/login.json")
        #expect(gpodder.subscriptionChanges(since: 17).url == "https://gpodder.example/api/2/subscriptions/al%20ice/pods-box.json?since=17")
        #expect(gpodder.actions(since: -5).url == "https://gpodder.example/api/2/episodes/al%20ice.json?since=0")
        #expect(gpodder.registerDevice(caption: "Pods")?.url == "https://gpodder.example/api/2/devices/al%20ice/pods-box.json")
        let nextcloud = SyncEndpoints(api: .nextcloud, server: "https://cloud.example/nc", user: "alice", device: "ignored")
        #expect(nextcloud.subscriptionChanges(since: 0).url == "https://cloud.example/nc/index.php/apps/gpoddersync/subscriptions?since=0")
        #expect(nextcloud.uploadSubscriptions(add: ["a"], remove: []).url
                == "https://cloud.example/nc/index.php/apps/gpoddersync/subscription_change/create")
        #expect(nextcloud.actions(since: 9).url == "https://cloud.example/nc/index.php/apps/gpoddersync/episode_action?since=9")
        #expect(nextcloud.uploadActions([]).url == "https://cloud.example/nc/index.php/apps/gpoddersync/episode_action/create")
        #expect(nextcloud.registerDevice(caption: "x") == nil)
        #expect(SyncEndpoints.defaultDevice(hostName: "My Laptop.local") == "pods-my-laptop.local")
    }

    /// gpodder.net's actions name the device; Nextcloud keeps plays alone, so
    /// unplayed goes as a play at 0 and downloads are not sent.
    @Test func uploadsPerAPI() throws {
        let when = Date(timeIntervalSince1970: 1_729_419_373)
        let actions = [EpisodeAction(podcast: "https://f.example/feed", episode: "https://f.example/1.mp3", guid: "g", kind: .new,
                                     timestamp: when, total: 1800)]
        let gpodder = SyncEndpoints(api: .gpodder, server: "https://g.example", user: "u", device: "d").uploadActions(actions)
        let sent = try #require(JSONSerialization.jsonObject(with: gpodder.body ?? Data()) as? [[String: Any]])
        #expect(sent.first?["action"] as? String == "new" && sent.first?["device"] as? String == "d")
        #expect(!String(decoding: gpodder.body ?? Data(), as: UTF8.self).contains("\\/"))
        let nextcloud = SyncEndpoints(api: .nextcloud, server: "https://n.example", user: "u", device: "d")
        let played = try #require(JSONSerialization.jsonObject(with: nextcloud.uploadActions(actions).body ?? Data()) as? [[String: Any]])
        #expect(played.first?["action"] as? String == "play" && played.first?["position"] as? Int == 0 && played.first?["total"] as? Int == 1800)
        #expect(played.first?["device"] == nil)
        #expect(!nextcloud.keeps(.download) && !nextcloud.keeps(.delete) && nextcloud.keeps(.play))
    }

    @Test func answersReadLenientlyAndRefusedInOneLine() throws {
        let changes = try SyncAnswers.subscriptionChanges(Data(#"{"add": ["http%3A//a.example/feed", "ftp://x"], "remove": [], "timestamp": "12"}"#.utf8), from: "S")
        #expect(changes.add == ["http://a.example/feed"] && changes.remove.isEmpty && changes.timestamp == 12)
        let upload = try SyncAnswers.upload(Data(#"{"timestamp": 5, "update_urls": [["a ", "a"], ["bad"], ["x", ""]]}"#.utf8), from: "S")
        #expect(upload.updatedURLs.count == 2 && upload.timestamp == 5)
        #expect(try SyncAnswers.upload(Data(), from: "S").timestamp == nil)
        let page = try SyncAnswers.actions(Data(#"{"actions": [{"podcast": "p", "episode": "e", "action": "PLAY", "timestamp": "2024-10-20T10:16:13+00:00", "position": 5, "total": 9}, {"action": "flattr"}], "timestamp": 99}"#.utf8), from: "S")
        #expect(page.actions.count == 1 && page.unusable == 1 && page.count == 2 && page.timestamp == 99)
        for (body, reason) in [("<html>login</html>", "it answered with a web page"), ("{oops", "its answer is not JSON"),
                               ("[1]", "its answer is not a JSON object"), (#"{"actions": []}"#, "its answer has no timestamp")] {
            #expect(throws: SyncError("S is not a gpodder.net or Nextcloud GPodder Sync server: \(reason)")) {
                _ = try SyncAnswers.actions(Data(body.utf8), from: "S")
            }
        }
        #expect(SyncAnswers.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(SyncAnswers.httpDate("yesterday") == nil)
    }
}

extension SyncAPITests {
    /// Timestamps agree with Foundation's reading over four centuries.
    @Test func timestampsAgreeWithFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: -2_208_988_800...4_102_444_800, using: &generator)))
            #expect(SyncTimestamp.string(date) == formatter.string(from: date))
            #expect(SyncTimestamp.date(formatter.string(from: date)) == date)
        }
        #expect(SyncTimestamp.date("yesterday at noon") == nil && SyncTimestamp.date(true) == nil)
        // Unix seconds no later arithmetic survives are no date (a hostile server's 1e20).
        #expect(SyncTimestamp.date(NSNumber(value: 1_700_000_000)) == Date(timeIntervalSince1970: 1_700_000_000))
        for seconds in [1e20, 1e300, -5, 1e11] { #expect(SyncTimestamp.date(NSNumber(value: seconds)) == nil, "\(seconds)") }
    }
}
