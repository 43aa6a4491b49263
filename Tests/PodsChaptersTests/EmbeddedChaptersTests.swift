import Foundation
@testable import PodsChapters
import PodsTestSupport
import Testing

@Suite(.timeLimit(.minutes(10))) struct EmbeddedChaptersTests {
    static let marks = [
        ChapterFixtures.Mark(0, 2, "Intro"), ChapterFixtures.Mark(2, 4.5, "Ünïcode talk — part 1"), ChapterFixtures.Mark(4.5, 6, "Outro"),
    ]

    static func read(_ url: URL) throws -> [EpisodeChapter] {
        try EmbeddedChapters.read(from: InMemoryBytes(Array(try Data(contentsOf: url))))
    }

    static func expectMarks(_ chapters: [EpisodeChapter], _ source: ChapterSource, tolerance: Double = 0.001) {
        #expect(chapters.map(\.title) == marks.map(\.title))
        #expect(chapters.allSatisfy { $0.source == source && $0.toc })
        for (chapter, mark) in zip(chapters, marks) { #expect(abs(chapter.start - mark.start) <= tolerance) }
    }

    @Test func mp3ChaptersFromID3CHAPFrames() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let url = try await ChapterFixtures.make(.mp3, Self.marks, seconds: 6, name: "c.mp3", in: directory)
        let chapters = try Self.read(url)
        Self.expectMarks(chapters, .id3)
        #expect(chapters.map(\.end) == [2, 4.5, 6])
    }

    /// mutagen writes what ffmpeg does not: an ID3v2.3 tag, a CTOC that
    /// lists only some chapters, UTF-16 titles, links and chapter images.
    @Test func id3TableOfContentsLinksImagesAndVersion3() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let url = try await ChapterFixtures.make(.mp3, [], seconds: 6, name: "plain.mp3", in: directory)
        try await ChapterFixtures.mutagen("""
            import sys
            from mutagen.id3 import ID3, CHAP, CTOC, TIT2, WXXX, APIC, CTOCFlags
            tags = ID3(sys.argv[1])
            tags.delall("CHAP"); tags.delall("CTOC")
            tags.add(CHAP(element_id="a", start_time=0, end_time=3000, sub_frames=[TIT2(encoding=1, text=["Opening ☕"]),
                WXXX(encoding=0, desc="", url="https://example.com/a")]))
            tags.add(CHAP(element_id="b", start_time=3000, end_time=5000, sub_frames=[TIT2(encoding=3, text=["Middle"]),
                APIC(encoding=3, mime="image/png", type=3, desc="", data=b"\\x89PNG fake image")]))
            tags.add(CHAP(element_id="hidden", start_time=5000, end_time=6000, sub_frames=[TIT2(encoding=0, text=["Ad"])]))
            tags.add(CTOC(element_id="toc", flags=CTOCFlags.TOP_LEVEL | CTOCFlags.ORDERED, child_element_ids=["a", "b"],
                sub_frames=[TIT2(text=["Contents"])]))
            tags.save(v2_version=3)
            """, [url.path])
        let bytes = Array(try Data(contentsOf: url))
        #expect(bytes[3] == 3)
        let chapters = try EmbeddedChapters.read(from: InMemoryBytes(bytes))
        #expect(chapters.map(\.title) == ["Opening ☕", "Middle", "Ad"])
        #expect(chapters.map(\.toc) == [true, true, false])
        #expect(chapters[0].url == "https://example.com/a")
        #expect(chapters[1].embeddedImage == EmbeddedImage(mimeType: "image/png", bytes: [0x89] + Array("PNG fake image".utf8)))
        #expect(chapters.map(\.start) == [0, 3, 5])
    }

    @Test func m4aChaptersFromNeroAndTheQuickTimeTrack() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let url = try await ChapterFixtures.make(.m4a, Self.marks, seconds: 6, name: "c.m4a", in: directory)
        let chapters = try Self.read(url)
        Self.expectMarks(chapters, .mp4, tolerance: 0.05)
        // ffmpeg writes both encodings; each is read on its own.
        let source = InMemoryBytes(Array(try Data(contentsOf: url)))
        let movie = try #require(try MP4Chapters.findBox("moov", in: source))
        let moov = try source.bytes(in: movie)
        Self.expectMarks(MP4Chapters.neroChapters(in: moov), .mp4, tolerance: 0.05)
        Self.expectMarks(try MP4Chapters.trackChapters(in: moov, source: source), .mp4, tolerance: 0.05)
    }

    @Test(arguments: [ChapterFixtures.Kind.ogg, .opus, .flac])
    func vorbisCommentChapters(_ kind: ChapterFixtures.Kind) async throws {
        let directory = try Fixtures.temporaryDirectory()
        let url = try await ChapterFixtures.make(kind, Self.marks, seconds: 6, name: "c.\(kind.rawValue)", in: directory)
        Self.expectMarks(try Self.read(url), .vorbis)
    }

    @Test func aFileWithoutChaptersHasNone() async throws {
        let directory = try Fixtures.temporaryDirectory()
        for format in AudioFixtures.Format.allCases {
            let url = try await AudioFixtures.make(format, seconds: 1, in: directory)
            #expect(try Self.read(url).isEmpty)
        }
    }

    @Test func vorbisChapterCommentsAreReadLeniently() {
        let chapters = VorbisChapters.chapters(fromComments: [
            "CHAPTER002=00:10:00.5", "chapter002name=Second", "CHAPTER001=0:00", "CHAPTER001NAME=First",
            "CHAPTER003=nonsense", "CHAPTER003NAME=Broken", "CHAPTER001URL=https://x.example", "TITLE=Not a chapter",
        ])
        #expect(chapters.map(\.title) == ["First", "Second"])
        #expect(chapters.map(\.start) == [0, 600.5])
        #expect(chapters[0].url == "https://x.example")
    }

    /// Cut and scrambled files end in an error or fewer chapters, never a trap.
    @Test func brokenFilesNeverTrap() async throws {
        let directory = try Fixtures.temporaryDirectory()
        var random = SplitMix64(state: 12)
        for kind in [ChapterFixtures.Kind.mp3, .m4a, .opus] {
            let url = try await ChapterFixtures.make(kind, Self.marks, seconds: 6, name: "f.\(kind.rawValue)", in: directory)
            let bytes = Array(try Data(contentsOf: url))
            for round in 0..<300 {
                var broken = Array(bytes.prefix(Int(random.next() % UInt64(min(bytes.count, 4096) + 1))))
                if round % 2 == 0, !broken.isEmpty {
                    for _ in 0..<8 { broken[Int(random.next() % UInt64(broken.count))] = UInt8(truncatingIfNeeded: random.next()) }
                }
                _ = try? EmbeddedChapters.read(from: InMemoryBytes(broken))
            }
        }
    }

    /// A real M4A with one more box whose 64-bit size is absurd: inside
    /// `moov` (last), inside `udta` (first), or at the top level. Such a
    /// file killed podsd with an overflow trap at every start.
    @Test(arguments: [UInt64(Int64.max), UInt64.max, UInt64(Int64.max) - 8])
    func absurdBoxSizesAreMalformedNotATrap(_ size: UInt64) async throws {
        let directory = try Fixtures.temporaryDirectory()
        let url = try await ChapterFixtures.make(.m4a, Self.marks, seconds: 6, name: "h.m4a", in: directory)
        let file = Array(try Data(contentsOf: url))
        let lastInMovie = try ChapterFixtures.inserting(boxOfSize: size, into: ["moov"], atEnd: true, of: file)
        Self.expectMarks(try EmbeddedChapters.read(from: InMemoryBytes(lastInMovie)), .mp4, tolerance: 0.05)
        let firstInUserData = try ChapterFixtures.inserting(boxOfSize: size, into: ["moov", "udta"], atEnd: false, of: file)
        #expect(throws: Never.self) { _ = try? EmbeddedChapters.read(from: InMemoryBytes(firstInUserData)) }
        let topLevel = try ChapterFixtures.inserting(boxOfSize: size, into: [], atEnd: false, of: file)
        #expect(throws: ChapterError.self) { try EmbeddedChapters.read(from: InMemoryBytes(topLevel)) }
    }
}
