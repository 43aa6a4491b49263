import PodsChapters
import Testing

/// Chapters read from times listed in show notes.
struct ShowNoteChaptersTests {
    static func read(_ lines: [String], duration: Double? = nil) -> [String] {
        ShowNoteChapters.chapters(in: lines, duration: duration).map { "\(Int($0.start)) \($0.title)" }
    }

    @Test func listsAsShowsWriteThem() {
        #expect(Self.read(["Links below.", "00:00 Intro", "(05:12) – The news", "[1:02:03] Listener mail", "• 1:10:00 - Goodbye"])
                == ["0 Intro", "312 The news", "3723 Listener mail", "4200 Goodbye"])
        // Notes whose lines were run together (plain text squashed).
        #expect(Self.read(["Timestamps: 0:00 Hello there 4:30 Second part 12:00 Third, and last"])
                == ["0 Hello there", "270 Second part", "720 Third, and last"])
        // Two, from the start; a time with no words is numbered.
        #expect(Self.read(["0:00 Start", "10:00"]) == ["0 Start", "600 Chapter 2"])
    }

    @Test func whatIsNoChapterList() {
        #expect(Self.read(["Recorded at 10:30 in Berlin.", "Next week: 11:00"]).isEmpty)  // two, not from 0:00
        #expect(Self.read(["10:00 One", "20:00 Two"]).isEmpty)  // two, not from 0:00
        #expect(Self.read(["0:00 A", "20:00 B", "10:00 C"]).isEmpty)  // times that do not rise
        #expect(Self.read(["0:00 A", "1:60 B", "2:00 C"]) == ["0 A", "120 C"])  // 1:60 is no time
        #expect(Self.read(["0:00 A", "12:345 B", "123:45 C", "1:2 D", "1:02:03:04 E", "a1:00 F"]).isEmpty)  // none a time but the first
        #expect(Self.read([]).isEmpty)
    }

    @Test func timesPastTheEndAndHostileNotesAreBounded() {
        #expect(Self.read(["0:00 A", "10:00 B", "20:00 C", "99:00 D"], duration: 1500) == ["0 A", "600 B", "1200 C"])
        let many = (0..<2000).map { "\($0 / 60):\(String(format: "%02d", $0 % 60)) Part \($0)" }
        #expect(Self.read(many).count == 500)
        let long = String(repeating: "9:59 ", count: 50_000)
        #expect(Self.read([long]).isEmpty)  // none rises
        #expect(Self.read([String(repeating: "0:00 x ", count: 3) + String(repeating: "é", count: 1000)]).isEmpty)
    }
}
