import PodsChapters
import Testing

@Suite(.timeLimit(.minutes(10))) struct ChapterMergeTests {
    static func list(_ source: ChapterSource, _ starts: [Double], titles: [String]? = nil, images: Bool = false) -> [EpisodeChapter] {
        starts.enumerated().map { index, start in
            EpisodeChapter(start: start, title: titles?[index] ?? "", image: images ? "https://x/\(index).jpg" : nil, source: source)
        }
    }

    @Test func theLongerListWins() {
        let merged = ChapterMerge.merge([Self.list(.psc, [0, 60]), Self.list(.id3, [0, 30, 60])], duration: 100)
        #expect(merged.map(\.source) == [.id3, .id3, .id3])
        #expect(merged.map(\.end) == [30, 60, 100])
    }

    @Test func equalListsWithinASecondAreMergedFieldByField() {
        let feed = Self.list(.psc, [0, 60], titles: ["Hello", ""])
        let file = Self.list(.id3, [0.4, 60.9], titles: ["Hi", "Main part"], images: true)
        let merged = ChapterMerge.merge([file, feed])
        #expect(merged.map(\.title) == ["Hello", "Main part"])  // PSC is preferred, gaps filled from ID3
        #expect(merged.map(\.start) == [0, 60])
        #expect(merged.map(\.image) == ["https://x/0.jpg", "https://x/1.jpg"])
        #expect(merged.map(\.source) == [.psc, .psc])
    }

    @Test func equalListsThatDisagreeKeepTheRicherOne() {
        let json = Self.list(.json, [0, 100], titles: ["", ""])
        let mp4 = Self.list(.mp4, [0, 50], titles: ["A", "B"])
        #expect(ChapterMerge.merge([json, mp4]).map(\.source) == [.mp4, .mp4])
        let richerJSON = Self.list(.json, [0, 100], titles: ["A", "B"])
        #expect(ChapterMerge.merge([mp4, richerJSON]).map(\.source) == [.json, .json])  // a tie: JSON first
    }

    @Test func silentChaptersStayOutOfTheContestAndInTheResult() {
        var json = Self.list(.json, [0, 60], titles: ["A", "B"])
        json.append(EpisodeChapter(start: 30, title: "Ad art", image: "https://x/ad.jpg", toc: false, source: .json))
        let id3 = Self.list(.id3, [0, 20, 40], titles: ["1", "2", "3"])
        let merged = ChapterMerge.merge([json, id3], duration: 90)
        #expect(merged.map(\.title) == ["1", "2", "Ad art", "3"])
        #expect(merged.map(\.toc) == [true, true, false, true])
        #expect(merged[2].end == 40)
    }

    @Test func nothingGivesNothing() {
        #expect(ChapterMerge.merge([[], []]).isEmpty)
    }
}
