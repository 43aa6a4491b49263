import Foundation
@testable import PodsFeedParser
@testable import PodsLibrary
import Testing

@Suite(.timeLimit(.minutes(10))) struct EpisodeContentHashTests {
    private static func episode(_ change: (inout Episode) -> Void = { _ in }) -> Episode {
        var episode = Episode()
        episode.guid = "g"
        episode.title = "A title of more than eight bytes"
        episode.descriptionHTML = "<p>" + String(repeating: "notes ", count: 300) + "</p>"
        episode.enclosures = [Enclosure(url: "https://cdn.example.org/1.mp3", type: "audio/mpeg", length: 1000)]
        change(&episode)
        return episode
    }

    /// The same content always hashes the same (it is stored and compared
    /// across runs); any change to what a feed says changes it.
    @Test func everyChangeChangesTheHashAndNothingElseDoes() {
        let base = EpisodeContentHash.of(Self.episode())
        #expect(EpisodeContentHash.of(Self.episode()) == base)
        #expect(EpisodeContentHash.of(Self.episode { $0.guid = "other" }) == base)  // the guid is the identity, not content
        let changed: [Episode] = [
            Self.episode { $0.title += "!" },
            Self.episode { $0.title.removeLast() },  // a tail shorter than a word
            Self.episode { $0.title = "A title of more than eight byteS" },
            Self.episode { $0.descriptionHTML?.append(" ") },
            Self.episode { $0.plainDescription = "" },
            Self.episode { $0.link = "" },
            Self.episode { $0.duration = 1 },
            Self.episode { $0.enclosures[0].length = 1001 },
            Self.episode { $0.chapters = [Chapter(start: 0, title: "Intro", url: nil, image: nil)] },
        ]
        let hashes = changed.map(EpisodeContentHash.of)
        #expect(!hashes.contains(base))
        #expect(Set(hashes).count == hashes.count)
    }

    /// Where one field ends and the next begins counts.
    @Test func fieldBoundariesCount() {
        let one = EpisodeContentHash.of(Self.episode { $0.title = "ab"; $0.link = "" })
        let two = EpisodeContentHash.of(Self.episode { $0.title = "a"; $0.link = "b" })
        let three = EpisodeContentHash.of(Self.episode { $0.title = "ab\0"; $0.link = "" })
        #expect(Set([one, two, three]).count == 3)
    }
}
