import Foundation
import PodsFeedParser
import PodsTestSupport
import Testing

/// Every captured real feed parses with every item, the two broken ones included.
@Suite(.timeLimit(.minutes(10))) struct RealFeedTests {
    static let feeds: [(String, Int)] = [
        ("apple/hiking_treks_apple_sample.xml", 9), ("feed-rs/rss_2.0_anchorfm.xml", 1),
        ("feed-rs/rss_2.0_nightvale.xml", 1), ("feed-rs/rss_2.0_spreaker.xml", 1),
        ("partytime-real-world/SOM.xml", 2), ("partytime-real-world/empty.xml", 0),
        ("partytime-real-world/example.xml", 3), ("partytime-real-world/launched.xml", 36),
        ("partytime-real-world/legacy.xml", 3), ("partytime-real-world/natube-test.xml", 15),
        ("partytime-real-world/pc20rss.xml", 56), ("partytime-real-world/podverse-test-feed.xml", 5),
        ("partytime-real-world/publisher.xml", 0), ("partytime-real-world/real-world__1865.xml", 61),
        ("partytime-real-world/real-world__animated-no-agenda.xml", 20),
        ("partytime-real-world/real-world__changing-the-tide.xml", 15),
        ("partytime-real-world/real-world__dk-podcast.xml", 59),
        ("partytime-real-world/real-world__homegrown-hits.xml", 4),
        ("partytime-real-world/real-world__no-agenda.xml", 29),
        ("partytime-real-world/real-world__sentimental-garbage.xml", 138),
        ("partytime-real-world/real-world__themnshow.xml", 54), ("partytime-real-world/simple.xml", 3),
        ("partytime-real-world/unlocked.xml", 3), ("podcast-namespace/example.xml", 3),
        ("rsparser/atp.rss", 100), ("rsparser/theomnishow.rss", 4),
    ]

    @Test(arguments: feeds)
    func parsesEveryItem(_ name: String, _ items: Int) throws {
        let path = Fixtures.sharedTestData.appendingPathComponent("feeds").appendingPathComponent(name).path
        let feed = try FeedParser().parse(fileAt: path)
        #expect(feed.episodes.count == items)
        #expect(!feed.title.isEmpty)
        #expect(Set(feed.episodes.map(\.guid)).count == feed.episodes.count, "guids are unique")
        #expect(feed.episodes.allSatisfy { !$0.guid.isEmpty && !$0.title.isEmpty })
    }

    @Test func accidentalTechPodcastDetails() throws {
        let path = Fixtures.sharedTestData.appendingPathComponent("feeds/rsparser/atp.rss").path
        let feed = try FeedParser().parse(fileAt: path)
        #expect(feed.title == "Accidental Tech Podcast")
        #expect(feed.author == "Marco Arment, Casey Liss, John Siracusa")
        let first = try #require(feed.episodes.first)
        #expect(first.enclosures.first?.type == "audio/mpeg")
        #expect((first.enclosures.first?.length ?? 0) > 1_000_000)
        #expect(first.published != nil)
        #expect((first.duration ?? 0) > 600)
        #expect(first.descriptionHTML != nil && !first.description.contains("<"))
    }

    @Test func podcastingTwoPointOhTags() throws {
        let path = Fixtures.sharedTestData.appendingPathComponent("feeds/podcast-namespace/example.xml").path
        let feed = try FeedParser().parse(fileAt: path)
        #expect(feed.locked != nil)
        #expect(feed.details.funding.first != nil)
        let episode = try #require(feed.episodes.first)
        #expect(episode.transcriptURL != nil)
        #expect(episode.chaptersURL != nil)
        #expect(!episode.persons.isEmpty)
        #expect(episode.season != nil && episode.number != nil)
    }

    @Test func appleSampleIsSerialWithTrailer() throws {
        let path = Fixtures.sharedTestData.appendingPathComponent("feeds/apple/hiking_treks_apple_sample.xml").path
        let feed = try FeedParser().parse(fileAt: path)
        #expect(feed.type == "serial")
        #expect(feed.episodes.contains { $0.episodeType == "trailer" })
        #expect(feed.episodes.contains { $0.season != nil })
        #expect(!feed.categories.isEmpty)
    }
}
