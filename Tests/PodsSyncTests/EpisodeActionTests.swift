import Foundation
import PodsSync
import Testing

@Suite(.timeLimit(.minutes(10))) struct EpisodeActionTests {
    static let when = Date(timeIntervalSince1970: 1_729_419_373)  // 2024-10-20T10:16:13Z

    @Test func whatIsSentIsWhatAntennaPodAndTheServersExpect() throws {
        let action = EpisodeAction(podcast: "https://example.com/feed.xml", episode: "https://cdn.example.com/1.mp3", guid: "g-1",
                                   kind: .play, timestamp: Self.when, started: 10, position: 4060, total: 4100)
        let object = action.jsonObject
        #expect(object["action"] as? String == "play")
        #expect(object["timestamp"] as? String == "2024-10-20T10:16:13")
        #expect(object["started"] as? Int == 10 && object["position"] as? Int == 4060 && object["total"] as? Int == 4100)
        #expect(object["guid"] as? String == "g-1" && object["device"] == nil)
        let data = try JSONSerialization.data(withJSONObject: [object])
        #expect(String(decoding: data, as: UTF8.self).contains("\"timestamp\":\"2024-10-20T10:16:13\""))
        let bare = EpisodeAction(podcast: "p", episode: "e", kind: .new, timestamp: Self.when).jsonObject
        #expect(bare["guid"] == nil && bare["position"] == nil)
    }

    @Test(arguments: ["2024-10-20T10:16:13", "2024-10-20T10:16:13Z", "2024-10-20T11:16:13+01:00", "2024-10-20T11:16:13+0100",
                      "2024-10-20T10:16:13.512", "2024-10-20T05:16:13.5-05:00", "2024-10-20 10:16:13"])
    func everyTimestampFormServersSend(_ text: String) {
        let date = SyncTimestamp.date(text)
        #expect(date.map { abs($0.timeIntervalSince(Self.when)) < 1 } == true, "\(text) → \(String(describing: date))")
    }

    @Test func receivedLeniently() {
        let nextcloud = EpisodeAction(json: ["podcast": "p", "episode": "e", "action": "PLAY", "timestamp": "2024-10-20T10:16:13+00:00",
                                             "started": -1, "position": 120, "total": -1, "guid": "null"])
        #expect(nextcloud?.kind == .play && nextcloud?.position == 120 && nextcloud?.total == nil && nextcloud?.guid == nil)
        #expect(EpisodeAction(json: ["podcast": "p", "episode": "e", "action": "PLAY", "timestamp": "2024-10-20T10:16:13",
                                     "started": -1, "position": -1, "total": -1]) == nil, "a play without a position")
        #expect(EpisodeAction(json: ["podcast": "p", "episode": "e", "action": "flattr", "timestamp": "2024-10-20T10:16:13"]) == nil)
        #expect(EpisodeAction(json: ["podcast": "p", "episode": "e", "action": "play", "timestamp": "yesterday"]) == nil)
        #expect(EpisodeAction(json: ["podcast": "p", "action": "new", "timestamp": "2024-10-20T10:16:13"]) == nil)
        #expect(EpisodeAction(json: ["podcast": "p", "episode": "e", "action": "New", "timestamp": "2024-10-20T10:16:13"])?.kind == .new)
    }

    @Test func matchedByGuidThenURLThenNormalisedURL() {
        let episodes = [
            SyncableEpisode(id: 1, guid: "a", enclosureURLs: ["https://cdn.example.com/a.mp3"]),
            SyncableEpisode(id: 2, guid: "b", enclosureURLs: ["https://CDN.example.com/b%3Apart.mp3"]),
        ]
        func action(_ episode: String, guid: String?) -> EpisodeAction {
            EpisodeAction(podcast: "p", episode: episode, guid: guid, kind: .play, timestamp: Self.when, position: 1, total: 2)
        }
        #expect(ActionMatching.episode(for: action("https://moved.example.com/x.mp3", guid: "a"), among: episodes)?.id == 1)
        #expect(ActionMatching.episode(for: action("https://cdn.example.com/a.mp3", guid: nil), among: episodes)?.id == 1)
        #expect(ActionMatching.episode(for: action("https://cdn.example.com/b:part.mp3/", guid: nil), among: episodes)?.id == 2)
        #expect(ActionMatching.episode(for: action("https://other.example.com/c.mp3", guid: "zz"), among: episodes) == nil)
    }

    @Test func remoteActionsApplyOnlyWhenNewerAndNeverToThePlayingEpisode() {
        let play = EpisodeAction(podcast: "p", episode: "e", kind: .play, timestamp: Self.when, started: 0, position: 600, total: 3600)
        #expect(ActionDecision.decide(play, localChange: nil, isPlaying: false, playedWithin: 30) == .setPosition(seconds: 600))
        #expect(ActionDecision.decide(play, localChange: Self.when.addingTimeInterval(1), isPlaying: false, playedWithin: 30) == .ignore)
        #expect(ActionDecision.decide(play, localChange: Self.when.addingTimeInterval(-1), isPlaying: true, playedWithin: 30) == .later)
        var nearEnd = play
        nearEnd.position = 3590
        #expect(ActionDecision.decide(nearEnd, localChange: nil, isPlaying: false, playedWithin: 30) == .markPlayed)
        let reset = EpisodeAction(podcast: "p", episode: "e", kind: .new, timestamp: Self.when)
        #expect(ActionDecision.decide(reset, localChange: nil, isPlaying: false, playedWithin: 30) == .markUnplayed)
        let download = EpisodeAction(podcast: "p", episode: "e", kind: .download, timestamp: Self.when)
        #expect(ActionDecision.decide(download, localChange: nil, isPlaying: false, playedWithin: 30) == .ignore)
    }

    @Test func batchesOfThirty() {
        let actions = (0..<65).map { EpisodeAction(podcast: "p", episode: "e\($0)", kind: .new, timestamp: Self.when) }
        #expect(ActionBatches.split(actions).map(\.count) == [30, 30, 5])
        #expect(ActionBatches.split([]).isEmpty)
    }
}
