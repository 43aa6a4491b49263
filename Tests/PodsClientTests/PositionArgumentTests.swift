import Foundation
import PodsClient
import Testing

@Suite(.timeLimit(.minutes(10))) struct PositionArgumentTests {
    @Test func parsesEveryForm() {
        #expect(PositionArgument("+30") == .relative(.seconds(30)))
        #expect(PositionArgument("-15") == .relative(.seconds(-15)))
        #expect(PositionArgument("90") == .absolute(.seconds(90)))
        #expect(PositionArgument("1:30") == .absolute(.seconds(90)))
        #expect(PositionArgument("1:02:03") == .absolute(.seconds(3723)))
        #expect(PositionArgument("2.5") == .absolute(.milliseconds(2500)))
        #expect(PositionArgument("+1:00") == .relative(.seconds(60)))
    }

    @Test(arguments: ["", "abc", "1:60", "1:2:3:4", "::", "+", "-x", "1.5:00", "nan", "inf", "1e3", "99999999999999999999", "+99999999999999999999"])
    func rejectsNonsense(_ text: String) {
        #expect(PositionArgument(text) == nil)
    }

    @Test func statusJSONHasEveryKey() throws {
        let status = PlayerStatus(state: .stopped, title: nil, url: nil, position: 0, duration: nil, rate: 1, volume: 1)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(status)) as? [String: Any]
        #expect(Set(object?.keys ?? [:].keys) == ["state", "title", "url", "position", "duration", "rate", "volume", "episodeId", "podcastId",
                                                  "buffering", "cached", "chapter", "cue", "sleep", "silenceSkipped", "loudnessGain", "lastError",
                                                  "pausedBecause"])
    }
}
