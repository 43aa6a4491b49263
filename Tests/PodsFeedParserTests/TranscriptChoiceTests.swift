import Foundation
@testable import PodsFeedParser
import Testing

/// Which `podcast:transcript` an item keeps: the podcast's language, then
/// timed over HTML over plain text, then the first.
struct TranscriptChoiceTests {
    static func chosen(_ transcripts: String, language: String? = "en-us") throws -> String? {
        let channelLanguage = language.map { "<language>\($0)</language>" } ?? ""
        let feed = try FeedParser(baseURL: URL(string: "https://e.com/f.xml")).parse(Data("""
            <?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0">
            <channel><title>T</title>\(channelLanguage)<item><title>E</title><guid>e</guid>
            <enclosure url="https://e.com/e.mp3" type="audio/mpeg" length="1"/>\(transcripts)</item></channel></rss>
            """.utf8))
        return feed.episodes.first?.transcriptURL
    }

    @Test func theTimedOneInThePodcastsLanguage() throws {
        let three = """
            <podcast:transcript url="https://e.com/t.html" type="text/html" language="en"/>
            <podcast:transcript url="https://e.com/t-es.json" type="application/json" language="es"/>
            <podcast:transcript url="https://e.com/t.vtt" type="text/vtt" language="en"/>
            <podcast:transcript url="https://e.com/t.srt" type="application/srt" language="en"/>
            """
        #expect(try Self.chosen(three) == "https://e.com/t.vtt")  // the first timed one in English
        #expect(try Self.chosen(three, language: "es") == "https://e.com/t-es.json")
        // No language said anywhere: the first timed one.
        #expect(try Self.chosen(three, language: nil) == "https://e.com/t-es.json")
        #expect(try Self.chosen("""
            <podcast:transcript url="https://e.com/t.txt" type="text/plain"/>
            <podcast:transcript url="https://e.com/t.html" type="text/html"/>
            <podcast:transcript url="https://e.com/c" type="application/octet-stream" rel="captions"/>
            """) == "https://e.com/c")
        #expect(try Self.chosen("""
            <podcast:transcript url="https://e.com/t.txt" type="text/plain"/>
            <podcast:transcript url="https://e.com/t.html" type="TEXT/HTML"/>
            """) == "https://e.com/t.html")
        // One without a URL is no choice.
        #expect(try Self.chosen("""
            <podcast:transcript type="text/vtt"/><podcast:transcript url="https://e.com/t.txt" type="text/plain"/>
            """) == "https://e.com/t.txt")
    }
}
