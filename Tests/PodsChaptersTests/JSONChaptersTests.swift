import Foundation
import PodsChapters
import Testing

@Suite(.timeLimit(.minutes(10))) struct JSONChaptersTests {
    @Test func readsTheVersion12Format() throws {
        let chapters = try JSONChapters.parse(Data("""
            {"version": "1.2.0", "chapters": [
              {"startTime": 90.5, "title": "Second", "img": "https://example.com/2.jpg", "url": "https://example.com/2"},
              {"startTime": 0, "title": "First", "endTime": 90.5},
              {"startTime": 30, "title": "Sponsor art", "toc": false, "img": "https://example.com/ad.jpg"},
              {"startTime": "120", "title": "Quoted number"},
              {"startTime": true, "title": "A boolean is not a time"},
              {"title": "No start"},
              {"startTime": -5, "title": "Negative"}
            ]}
            """.utf8))
        #expect(chapters.map(\.title) == ["First", "Sponsor art", "Second", "Quoted number"])
        #expect(chapters.map(\.toc) == [true, false, true, true])
        #expect(chapters[0].end == 90.5)
        #expect(chapters[2].image == "https://example.com/2.jpg")
        #expect(chapters[2].url == "https://example.com/2")
        #expect(chapters.allSatisfy { $0.source == .json })
    }

    @Test(arguments: ["<html>404</html>", "", "{\"version\": \"1.2\"}", "[1, 2]", "{\"chapters\": 5}"])
    func aDocumentThatIsNotAChaptersFileIsOneError(_ text: String) {
        #expect(throws: ChapterError.self) { try JSONChapters.parse(Data(text.utf8)) }
    }

    @Test func fieldsOfTheWrongTypeAreLeftOut() throws {
        let chapters = try JSONChapters.parse(Data(#"{"chapters": [{"startTime": 1, "title": 7, "url": [], "toc": "no"}]}"#.utf8))
        #expect(chapters == [EpisodeChapter(start: 1, title: "", source: .json)])
    }

    @Test func normalPlayTimeClocks() {
        #expect(EpisodeChapter.seconds(fromClock: "01:35:52") == 5752)
        #expect(EpisodeChapter.seconds(fromClock: "7:48") == 468)
        #expect(EpisodeChapter.seconds(fromClock: "35:12.250") == 2112.25)
        #expect(EpisodeChapter.seconds(fromClock: "37") == 37)
        #expect(EpisodeChapter.seconds(fromClock: "1:2:3:4") == nil)
        #expect(EpisodeChapter.seconds(fromClock: "1.5:00") == nil)
        #expect(EpisodeChapter.seconds(fromClock: "") == nil)
    }
}

/// Chapter times no episode has, from every chapter source: dropped where
/// they are read, and again where lists merge (a list an older Pods stored).
@Suite(.timeLimit(.minutes(10))) struct AbsurdChapterTimeTests {
    @Test(arguments: ["1e23", "1e308", "-1", "9223372036854775808", "\"1e23\"", "\"NaN\"", "\"inf\""])
    func jsonStartsNoEpisodeHasAreDropped(_ value: String) throws {
        let chapters = try JSONChapters.parse(Data(#"{"chapters":[{"startTime":\#(value),"title":"far"},{"startTime":1,"endTime":\#(value),"title":"near"}]}"#.utf8))
        #expect(chapters.map(\.title) == ["near"])
        #expect(chapters.first?.end == nil)
    }

    @Test func vorbisClocksAndMergedListsKeepOnlyTimesInAnEpisode() {
        let comments = ["CHAPTER001=99999999999:00:00.000", "CHAPTER001NAME=far", "CHAPTER002=00:00:01.000", "CHAPTER002NAME=near"]
        #expect(VorbisChapters.chapters(fromComments: comments).map(\.title) == ["near"])
        let stored = [EpisodeChapter(start: 1e23, title: "far", source: .json), EpisodeChapter(start: .nan, title: "nan", source: .json),
                      EpisodeChapter(start: 2, end: .infinity, title: "open", source: .json), EpisodeChapter(start: 1, title: "near", source: .json)]
        #expect(ChapterMerge.merge([stored], duration: 1e308).map(\.title) == ["near"])
    }
}
