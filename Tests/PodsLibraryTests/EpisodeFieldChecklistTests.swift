import Foundation
@testable import PodsFeedParser
@testable import PodsLibrary
import Testing

/// A feed field is one checklist: adding one to `Episode` (or to what it
/// holds) fails here with the places it must also go, and the content hash
/// is checked to see every field, so a field left out of it cannot
/// silently stop updating on refresh.
@Suite(.timeLimit(.minutes(10))) struct EpisodeFieldChecklistTests {
    static let places = """
        A field of Episode (or Enclosure, Chapter, Person) changed. Put it in each place, then pin it here:
          1. PodsFeedParser/FeedBuilder.swift reads it from the feed (and Feed+JSON.swift writes it for pods inspect --json);
          2. PodsLibrary/EpisodeContentHash.swift adds it (left out, a refresh never updates it) and this file's mutation for it;
          3. PodsLibrary/Library+Merge.swift (EpisodeRow columns) and Library.swift (a migration adding the column);
          4. PodsLibrary/Library+Episodes.swift decodes it back;
          5. PodsProtocol/LibraryItems.swift (the item schema) and PodsInterfaces/LibraryItemEncoding.swift (the D-Bus item);
          6. docs/dbus.md and docs/json.md say what it is;
          7. PodsFeedParser/ItemSkipper.swift's `version` goes up by one: items whose bytes are stored are never parsed
             again, so without it every episode already in a library keeps the new field empty for ever.
        """

    /// The channel's fields: what the library keeps of a `Feed` as its `Podcast`.
    static let channelPlaces = """
        A field of Feed (the channel) changed. Put it in each place it is kept, then pin it here:
          1. PodsFeedParser/FeedBuilder.swift reads it (and Feed+JSON.swift writes it for pods inspect --json);
          2. PodsLibrary/Library.swift: a migration adding the podcast column, which also clears every podcast's etag and
             lastModified: a feed that answers 304 is not parsed, and would keep the column NULL until it changes;
          3. PodsLibrary/Library+Podcasts.swift: the INSERT at subscribe, the UPDATE at refresh, the row's decode;
          4. PodsLibrary/LibraryModel.swift (Podcast), PodsProtocol/LibraryItems.swift (the podcast item) and
             PodsInterfaces/LibraryItemEncoding.swift;
          5. docs/dbus.md and docs/json.md. (A field kept only for pods inspect needs 1 alone: pin it here too.)
        """

    private static func labels(_ value: Any) -> [String] { Mirror(reflecting: value).children.compactMap(\.label) }

    @Test func theChannelFieldsAreTheOnesEveryPlaceKnows() {
        #expect(Self.labels(ChannelDetails()) == ["guid", "medium", "updateFrequency", "funding", "persons", "trailers", "podroll"],
                Comment(rawValue: Self.channelPlaces + "\n(ChannelDetails is kept whole as JSON: ChannelDetails.swift's Decodable, "
                        + "Feed+JSON.swift's writeJSON, and the places that show it.)"))
        #expect(Self.labels(Feed()) == [
            "title", "link", "description", "descriptionHTML", "author", "artworkURL", "language", "type", "explicit", "newFeedURL",
            "locked", "categories", "details", "episodes", "skippedItems",
        ], Comment(rawValue: Self.channelPlaces))
    }

    @Test func theFieldsAreTheOnesEveryPlaceKnows() {
        #expect(Self.labels(Episode()) == [
            "guid", "title", "link", "plainDescription", "descriptionHTML", "published", "duration", "enclosures", "artworkURL",
            "season", "seasonName", "number", "episodeType", "explicit", "author", "chapters", "chaptersURL", "transcriptURL", "persons",
            "soundbites", "fingerprint",
        ], Comment(rawValue: Self.places))
        #expect(Self.labels(Enclosure(url: "", type: nil, length: nil)) == ["url", "type", "length", "bitrate", "title"],
                Comment(rawValue: Self.places))
        #expect(Self.labels(Soundbite(start: 0, duration: 1, title: nil)) == ["start", "duration", "title"], Comment(rawValue: Self.places))
        #expect(Self.labels(Chapter(start: 0, title: "", url: nil, image: nil)) == ["start", "title", "url", "image"], Comment(rawValue: Self.places))
        #expect(Self.labels(Person(name: "", role: nil, group: nil, url: nil, image: nil)) == ["name", "role", "group", "url", "image"],
                Comment(rawValue: Self.places))
    }

    /// One change per field of what a feed says (the guid is the episode's
    /// identity and the fingerprint the parser's own; neither is content).
    static let changes: [String: @Sendable (inout Episode) -> Void] = [
        "title": { $0.title += "!" },
        "link": { $0.link = "https://example.org/1" },
        "plainDescription": { $0.plainDescription = "plain" },
        "descriptionHTML": { $0.descriptionHTML = "<p>other</p>" },
        "published": { $0.published = Date(timeIntervalSince1970: 1) },
        "duration": { $0.duration = 61 },
        "enclosures": { $0.enclosures.append(Enclosure(url: "https://e.org/2.mp3", type: nil, length: nil)) },
        "enclosures.url": { $0.enclosures[0].url += "?x" },
        "enclosures.type": { $0.enclosures[0].type = "audio/ogg" },
        "enclosures.length": { $0.enclosures[0].length = 2 },
        "enclosures.bitrate": { $0.enclosures[0].bitrate = 64000 },
        "enclosures.title": { $0.enclosures[0].title = "Smaller" },
        "seasonName": { $0.seasonName = "Egypt" },
        "soundbites": { $0.soundbites.append(Soundbite(start: 9, duration: 30, title: nil)) },
        "soundbites.start": { $0.soundbites[0].start = 1 },
        "soundbites.duration": { $0.soundbites[0].duration = 2 },
        "soundbites.title": { $0.soundbites[0].title = "Other" },
        "artworkURL": { $0.artworkURL = "https://e.org/a.png" },
        "season": { $0.season = 2 },
        "number": { $0.number = 3 },
        "episodeType": { $0.episodeType = "bonus" },
        "explicit": { $0.explicit = true },
        "author": { $0.author = "someone" },
        "chapters": { $0.chapters.append(Chapter(start: 9, title: "Nine", url: nil, image: nil)) },
        "chapters.start": { $0.chapters[0].start = 1 },
        "chapters.title": { $0.chapters[0].title = "Other" },
        "chapters.url": { $0.chapters[0].url = "https://e.org/c" },
        "chapters.image": { $0.chapters[0].image = "https://e.org/c.png" },
        "chaptersURL": { $0.chaptersURL = "https://e.org/c.json" },
        "transcriptURL": { $0.transcriptURL = "https://e.org/t.vtt" },
        "persons": { $0.persons.append(Person(name: "Guest", role: nil, group: nil, url: nil, image: nil)) },
        "persons.name": { $0.persons[0].name = "Other" },
        "persons.role": { $0.persons[0].role = "guest" },
        "persons.group": { $0.persons[0].group = "cast" },
        "persons.url": { $0.persons[0].url = "https://e.org/p" },
        "persons.image": { $0.persons[0].image = "https://e.org/p.png" },
    ]

    @Test func changingAnyFieldChangesTheContentHash() {
        var base = Episode()
        base.guid = "g"
        base.title = "Title"
        base.enclosures = [Enclosure(url: "https://e.org/1.mp3", type: "audio/mpeg", length: 1)]
        base.chapters = [Chapter(start: 0, title: "Intro", url: nil, image: nil)]
        base.persons = [Person(name: "Host", role: "host", group: nil, url: nil, image: nil)]
        base.soundbites = [Soundbite(start: 0, duration: 15, title: "Bite")]
        // Every field, and every field of what an episode holds, has its change.
        let fields = Set(Self.labels(base)).subtracting(["guid", "fingerprint"])
            .union(Self.labels(base.enclosures[0]).map { "enclosures." + $0 })
            .union(Self.labels(base.chapters[0]).map { "chapters." + $0 })
            .union(Self.labels(base.persons[0]).map { "persons." + $0 })
            .union(Self.labels(base.soundbites[0]).map { "soundbites." + $0 })
        #expect(Set(Self.changes.keys) == fields, Comment(rawValue: Self.places))
        let hash = EpisodeContentHash.of(base)
        for (field, change) in Self.changes.sorted(by: { $0.key < $1.key }) {
            var changed = base
            change(&changed)
            #expect(changed != base, "the change for \(field) changes nothing")
            #expect(EpisodeContentHash.of(changed) != hash, "EpisodeContentHash leaves out \(field): a refresh would never update it")
        }
    }
}
