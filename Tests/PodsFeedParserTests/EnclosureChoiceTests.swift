import PodsFeedParser
import Testing

/// Which enclosure plays: the feed's own, the preferred format's best, never one that cannot play.
struct EnclosureChoiceTests {
    static let mp3 = Enclosure(url: "https://e.com/e.mp3", type: "audio/mpeg", length: 1, bitrate: 128_000)
    static let opusLow = Enclosure(url: "https://e.com/low.opus", type: "audio/opus", length: 1, bitrate: 16_000)
    static let opusHigh = Enclosure(url: "https://e.com/high.opus", type: "audio/ogg; codecs=opus", length: 1, bitrate: 64_000)
    static let flac = Enclosure(url: "https://e.com/e.flac", type: "audio/flac", length: 1)
    static let all = [mp3, opusLow, opusHigh, flac]
    static let playable: Set<String> = ["mp3", "opus", "vorbis"]

    static func chosen(_ preferred: String, _ enclosures: [Enclosure] = all, playable: Set<String> = playable) -> String? {
        EnclosureChoice.choose(enclosures, preferred: preferred, playable: playable)?.url
    }

    @Test func theFeedsOwnThePreferredFormatsBestAndNeverTheUnplayable() {
        #expect(Self.chosen("feed") == Self.mp3.url)
        #expect(Self.chosen("opus") == Self.opusHigh.url)  // the higher bitrate; its type carries codecs=opus
        #expect(Self.chosen("flac") == Self.mp3.url)  // no FLAC decoder here: the feed's own
        #expect(Self.chosen("aac") == Self.mp3.url)  // none offered
        #expect(Self.chosen("flac", playable: Self.playable.union(["flac"])) == Self.flac.url)
        // The feed's own cannot play here: the first that can.
        #expect(Self.chosen("feed", [Self.flac, Self.opusLow]) == Self.opusLow.url)
        // None can, or none has a type: the feed's own, as before alternates.
        #expect(Self.chosen("feed", [Self.flac]) == Self.flac.url)
        #expect(Self.chosen("opus", [Enclosure(url: "https://e.com/x", type: nil, length: nil), Self.flac]) == "https://e.com/x")
        #expect(Self.chosen("feed", []) == nil)
        #expect(Self.chosen("nonsense") == Self.mp3.url)
    }

    /// The types feeds write for one format are that format; a type no
    /// format has is left to GStreamer, so the feed's own file stays.
    @Test func eachFormatByTheTypesFeedsGiveIt() {
        for (type, format) in [("audio/mpeg", "mp3"), ("Audio/MPEG3", "mp3"), ("audio/m4a", "aac"), ("audio/x-m4a", "aac"),
                               ("audio/ogg", "vorbis"), ("audio/ogg; codecs=opus", "opus"), ("audio/ogg;codecs=\"opus\"", "opus"),
                               ("audio/opus", "opus"), ("audio/x-flac", "flac"), ("audio/x-wav", "wav")] {
            #expect(EnclosureChoice.format(ofType: type) == format, "\(type)")
        }
        for type in ["video/mp4", "application/octet-stream", "", ";", "audio/"] {
            #expect(EnclosureChoice.format(ofType: type) == nil, "\(type)")
        }
        let m4a = Enclosure(url: "https://e.com/e.m4a", type: "audio/m4a", length: 1, bitrate: 96_000)
        #expect(Self.chosen("aac", [Self.mp3, m4a], playable: ["mp3", "aac"]) == m4a.url)
        let unlabelled = Enclosure(url: "https://e.com/e", type: "application/octet-stream", length: 1)
        #expect(Self.chosen("feed", [unlabelled, Self.mp3]) == unlabelled.url)
    }
}
