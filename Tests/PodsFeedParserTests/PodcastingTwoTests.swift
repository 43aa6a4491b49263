import Foundation
@testable import PodsFeedParser
import Testing

/// Podcasting 2.0's tags beyond chapters, transcripts and episode people:
/// read as the namespace writes them, hostile values dropped, lists bounded.
struct PodcastingTwoTests {
    static func parse(channel: String = "", item: String = "") throws -> Feed {
        try FeedParser(baseURL: URL(string: "https://e.com/f.xml")).parse(Data("""
            <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0">
            <channel><title>T</title>\(channel)<item><title>E</title><guid>e</guid>
            <enclosure url="https://e.com/e.mp3" type="audio/mpeg" length="1000"/>\(item)</item></channel></rss>
            """.utf8))
    }

    @Test func theChannelsDetails() throws {
        let feed = try Self.parse(channel: """
            <podcast:guid> 917393E3-1B1E-5CEF-ACE4-EDAA54E1F810 </podcast:guid><podcast:guid>second</podcast:guid>
            <podcast:medium>Music</podcast:medium>
            <podcast:updateFrequency rrule="FREQ=WEEKLY;BYDAY=MO,WE,FR" complete="false">Three a week</podcast:updateFrequency>
            <podcast:funding url="/support">Support   the show</podcast:funding>
            <podcast:funding url="https://e.com/patreon"/>
            <podcast:funding>no url</podcast:funding>
            <podcast:person role="Host" href="https://e.com/ann" img="ann.jpg">Ann Host</podcast:person>
            <podcast:trailer pubdate="Thu, 01 Apr 2021 08:00:00 GMT" url="https://e.com/trailer.mp3" length="12345"
                type="audio/mpeg" season="2">Season two is coming</podcast:trailer>
            <podcast:trailer url="javascript:alert(1)">Bad</podcast:trailer>
            <podcast:podroll>
              <podcast:remoteItem feedGuid="abc" feedUrl="https://other.example/feed.xml" medium="podcast"/>
              <podcast:remoteItem feedGuid="def" medium="nonsense"/>
              <podcast:remoteItem feedUrl="https://noguid.example/feed.xml"/>
            </podcast:podroll>
            <podcast:remoteItem feedGuid="outside-a-podroll"/>
            <podcast:liveItem status="live"><podcast:person>Live Guest</podcast:person></podcast:liveItem>
            """)
        let details = feed.details
        #expect(details.guid == "917393e3-1b1e-5cef-ace4-edaa54e1f810")
        #expect(details.medium == "music")
        #expect(details.updateFrequency == UpdateFrequency(text: "Three a week", rule: "FREQ=WEEKLY;BYDAY=MO,WE,FR", complete: false))
        #expect(details.updateFrequency?.period == 7.0 * 86400 / 3)
        #expect(details.funding == [Funding(url: "https://e.com/support", text: "Support the show"),
                                    Funding(url: "https://e.com/patreon", text: nil)])
        #expect(details.persons == [Person(name: "Ann Host", role: "host", group: nil, url: "https://e.com/ann", image: "https://e.com/ann.jpg")])
        #expect(details.trailers == [Trailer(url: "https://e.com/trailer.mp3", title: "Season two is coming", type: "audio/mpeg",
                                             length: 12345, published: FeedDates.parse("2021-04-01T08:00:00Z"), season: 2)])
        #expect(details.podroll == [RemoteItem(feedGuid: "abc", feedURL: "https://other.example/feed.xml", medium: "podcast"),
                                    RemoteItem(feedGuid: "def", feedURL: nil)])
        // Episodes' people stay theirs.
        #expect(feed.episodes.first?.persons == [])
        // pods inspect --json: the first funding link stays where it was, the rest under details.
        var json = JSONWriter(capacity: 1024)
        feed.writeJSON(to: &json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any])
        #expect(object["fundingURL"] as? String == "https://e.com/support")
        let written = try #require(object["details"] as? [String: Any])
        #expect(written["medium"] as? String == "music")
        #expect((written["podroll"] as? [Any])?.count == 2)
        // What the library stores reads back the same.
        #expect(try JSONDecoder().decode(ChannelDetails.self, from: Data(details.jsonText.utf8)) == details)
        #expect(try JSONDecoder().decode(ChannelDetails.self, from: Data("{}".utf8)) == ChannelDetails())
    }

    @Test func updateFrequencyRulesAreReadWithinBounds() {
        func period(_ rule: String?) -> TimeInterval? { UpdateFrequency(text: nil, rule: rule, complete: false).period }
        #expect(period("FREQ=DAILY") == 86400)
        #expect(period("freq=weekly;interval=2") == 14.0 * 86400)
        #expect(period("FREQ=MONTHLY") == 30.0 * 86400)
        #expect(period("FREQ=MINUTELY") == nil)
        #expect(period("FREQ=HOURLY;INTERVAL=0") == 3600)  // an interval of 0 is 1
        #expect(period("FREQ=YEARLY;INTERVAL=99999999999999999999") == 365.0 * 86400)  // no overflow, at most a year
        #expect(period("FREQ=SECONDLY") == nil)
        #expect(period("INTERVAL=3") == nil)
        #expect(period(nil) == nil)
        #expect(period(String(repeating: "FREQ=DAILY;", count: 10_000)) == 86400)
    }

    @Test func alternateEnclosuresSoundbitesAndSeasonNames() throws {
        let episode = try #require(try Self.parse(item: """
            <podcast:season name=" Egypt ">3</podcast:season>
            <podcast:alternateEnclosure type="audio/opus" length="500" bitrate="32000" title="Smaller">
              <podcast:source uri="ipfs://QmdwGqd3d2gFF"/>
              <podcast:source uri="https://e.com/e.opus"/>
              <podcast:source uri="https://e.com/second.opus"/>
            </podcast:alternateEnclosure>
            <podcast:alternateEnclosure type="audio/mpeg" bitrate="128000" default="true">
              <podcast:source uri="https://e.com/e.mp3"/>
            </podcast:alternateEnclosure>
            <podcast:alternateEnclosure type="audio/flac" bitrate="1e400"><podcast:source uri="magnet:?xt=urn"/></podcast:alternateEnclosure>
            <podcast:alternateEnclosure type="audio/aac" bitrate="-5"><podcast:source uri="https://e.com/e.aac"/></podcast:alternateEnclosure>
            <podcast:soundbite startTime="73.5" duration="60">The best  minute</podcast:soundbite>
            <podcast:soundbite startTime="10" duration="15"/>
            <podcast:soundbite startTime="-1" duration="60">Before the start</podcast:soundbite>
            <podcast:soundbite startTime="1e23" duration="60">Too far</podcast:soundbite>
            <podcast:soundbite startTime="5" duration="0">Nothing</podcast:soundbite>
            """).episodes.first)
        #expect(episode.season == 3)
        #expect(episode.seasonName == "Egypt")
        #expect(episode.enclosures == [
            Enclosure(url: "https://e.com/e.mp3", type: "audio/mpeg", length: 1000, bitrate: 128000),  // the feed's own, its bitrate learnt
            Enclosure(url: "https://e.com/e.opus", type: "audio/opus", length: 500, bitrate: 32000, title: "Smaller"),
            Enclosure(url: "https://e.com/e.aac", type: "audio/aac", length: nil, bitrate: nil),
        ])
        #expect(episode.soundbites == [Soundbite(start: 73.5, duration: 60, title: "The best minute"),
                                       Soundbite(start: 10, duration: 15, title: nil)])
        var json = JSONWriter(capacity: 1024)
        episode.writeJSON(to: &json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any])
        #expect(object["seasonName"] as? String == "Egypt")
        #expect((object["soundbites"] as? [Any])?.count == 2)
        #expect(try JSONDecoder().decode([Enclosure].self, from: Data(episode.enclosures.jsonText.utf8)) == episode.enclosures)
        #expect(try JSONDecoder().decode([Soundbite].self, from: Data(episode.soundbites.jsonText.utf8)) == episode.soundbites)
    }

    @Test func aHostileFeedsListsAreBounded() throws {
        let many = String(repeating: "<podcast:funding url=\"https://e.com/f\">F</podcast:funding>", count: 5000)
            + String(repeating: "<podcast:person>P</podcast:person>", count: 5000)
            + "<podcast:podroll>" + String(repeating: "<podcast:remoteItem feedGuid=\"g\"/>", count: 5000) + "</podcast:podroll>"
            + String(repeating: "<podcast:trailer url=\"https://e.com/t.mp3\">T</podcast:trailer>", count: 5000)
        let items = String(repeating: "<podcast:soundbite startTime=\"1\" duration=\"2\"/>", count: 5000)
            + (0..<5000).map { "<podcast:alternateEnclosure><podcast:source uri=\"https://e.com/\($0).mp3\"/></podcast:alternateEnclosure>" }
            .joined()
        let feed = try Self.parse(channel: many, item: items)
        let limit = ChannelDetails.listLimit
        #expect(feed.details.funding.count == limit && feed.details.persons.count == limit)
        #expect(feed.details.podroll.count == limit && feed.details.trailers.count == limit)
        #expect(feed.episodes.first?.soundbites.count == limit && feed.episodes.first?.enclosures.count == limit)
    }

    @Test func aWebFeedsAlternateNeverNamesALocalFile() throws {
        let episode = try #require(try Self.parse(item: """
            <podcast:alternateEnclosure type="audio/opus"><podcast:source uri="file:///etc/passwd"/>
            <podcast:source uri="/relative.opus"/></podcast:alternateEnclosure>
            """).episodes.first)
        #expect(episode.enclosures.map(\.url) == ["https://e.com/e.mp3", "https://e.com/relative.opus"])
    }
}
