import Foundation
import PodsClient
import PodsDBus
import PodsTerminal
@testable import PodsUI
import Testing

/// The UI's drawing and rules without a terminal: a model drawn on a canvas.
@Suite(.timeLimit(.minutes(10))) struct ScreenTests {
    static func model() -> UIModel {
        var model = UIModel()
        model.podcasts.rows = [PodcastRow(id: 1, title: "播客 Show", unplayed: 2, episodes: 3, lastError: nil)]
        model.episodesOf = 1
        model.episodes.rows = (1...40).map { (number: Int) -> EpisodeRow in
            let position: Double = number == 2 ? 60 : 0
            return EpisodeRow(id: Int64(number), podcastID: 1, podcastTitle: "播客 Show", title: "Episode \(number)", published: nil,
                              duration: 600, position: position, completed: number == 3, downloaded: nil)
        }
        model.status = PlayerStatus(state: .paused, title: "Episode 2", url: nil, position: 60, duration: 600, rate: 1.5, volume: 0.8)
        model.status?.episodeId = 2
        model.status?.podcastId = 1
        model.podcastTitle = "播客 Show"
        return model
    }

    @Test func theSmallestTerminalShowsEveryPartAndSmallerOnesSaySo() {
        let canvas = Screen.render(Self.model(), rows: 15, columns: 60, keys: KeyMap())
        let lines = (0..<canvas.rows).map(canvas.text(row:))
        #expect(lines[0].hasPrefix(" Pods  1 Podcasts"))
        #expect(lines[2].contains("播客 Show"))
        #expect(lines[3].contains("‖ Episode 2"))  // the loaded episode, paused
        #expect(lines[13].contains("‖ 播客 Show — Episode 2"))
        #expect(lines[14].contains("1:00 / 10:00") && lines[14].contains("1.5×") && lines[14].contains("vol 80%"))
        #expect(lines.allSatisfy { DisplayText.width(of: $0) == 60 })
        #expect(!lines[14].contains("levelled"))
        var levelled = Self.model()
        levelled.status?.loudnessGain = 6.5
        #expect(Screen.render(levelled, rows: 15, columns: 60, keys: KeyMap()).text(row: 14).contains("levelled"))
        let tiny = Screen.render(Self.model(), rows: 10, columns: 40, keys: KeyMap())
        #expect(tiny.text(row: 0).contains("pods ui needs 60×15; this is 40×10"))
    }

    /// The transcript layout: a line a row, the one being heard marked.
    @Test func theTranscriptMarksTheLineBeingHeard() {
        var model = Self.model()
        model.layout = .transcript
        model.status?.state = .playing
        model.transcript.rows = (1...3).map { number in
            var row = EpisodeRow(id: 2, podcastID: 0, podcastTitle: "", title: "0:0\(2 * number - 2)  Line \(number)", published: nil,
                                 duration: nil, position: 0, completed: false, downloaded: nil)
            row.cueIndex = number
            row.cueStart = Double(2 * number - 2)
            return row
        }
        model.status?.cue = PlayerStatus.Cue(index: 2, start: 2, text: "Line 2")
        let text = (0..<20).map(Screen.render(model, rows: 20, columns: 100, keys: KeyMap()).text(row:)).joined(separator: "\n")
        #expect(text.contains("Transcript (3)") && text.contains("· 0:00  Line 1") && text.contains("▶ 0:02  Line 2")
                && text.contains("· 0:04  Line 3"), "\(text)")
    }

    @Test func pagingMovesByAScreenAndKeepsTheSelectionInSight() {
        var model = Self.model()
        model.focus = .episodes
        model.move(.pageDown, height: 10)
        #expect(model.episodes.selected == 9 && model.episodes.top == 0)
        model.move(.pageDown, height: 10)
        #expect(model.episodes.selected == 18 && model.episodes.top == 9)
        model.move(.bottom, height: 10)
        #expect(model.episodes.selected == 39 && model.episodes.top == 30)
        model.move(.top, height: 10)
        #expect(model.episodes.selected == 0 && model.episodes.top == 0)
        model.episodes.filter = "Episode 1"
        #expect(model.episodes.visible(matching: { $0.title.contains($1) }).count == 11)  // 1, 10…19
    }

    @Test func theHelpListsEveryAction() {
        var model = Self.model()
        model.showsHelp = true
        let canvas = Screen.render(model, rows: 40, columns: 100, keys: KeyMap())
        let text = (0..<canvas.rows).map(canvas.text(row:)).joined(separator: "\n")
        for action in UIAction.allCases { #expect(text.contains(action.help), "\(action) is not in the help") }
    }
}

@Suite(.timeLimit(.minutes(10))) struct DisplayTextTests {
    @Test func widthsFollowTheTerminals() {
        #expect(DisplayText.width(of: "abc") == 3)
        #expect(DisplayText.width(of: "日本語") == 6)
        #expect(DisplayText.width(of: "🎧") == 2)
        #expect(DisplayText.width(of: "e\u{301}") == 1)  // e + a combining acute: one column
        #expect(DisplayText.width(of: "❤️") == 2)  // VS16: shown as a picture
        #expect(DisplayText.width(of: "שלום") == 4)
    }

    /// A title cannot reach the terminal: escape sequences, controls and
    /// bidi overrides are removed; tabs and line breaks are spaces.
    @Test func outsideTextCannotDriveTheTerminal() {
        #expect(DisplayText.sanitized("a\u{1B}]0;owned\u{07}b\u{1B}[2Jc") == "a]0;ownedb[2Jc")
        #expect(DisplayText.sanitized("x\u{202E}evil\u{2066}y\u{9B}z") == "xevilyz")
        #expect(DisplayText.sanitized("one\ttwo\nthree") == "one two three")
    }

    @Test func aWideCharacterThatDoesNotFitIsLeftOut() {
        var canvas = Canvas(rows: 1, columns: 5)
        #expect(canvas.put("ab日本", row: 0, column: 0, width: 5) == 4)  // 本 would need columns 4 and 5
        #expect(canvas.text(row: 0) == "ab日 ")
        #expect(DisplayText.truncated("日本語です", to: 5) == "日本…")
        #expect(DisplayText.wrapped("one two three four", to: 9) == ["one two", "three", "four"])
    }
}

@Suite(.timeLimit(.minutes(10))) struct KeyMapTests {
    @Test func bindingsReplaceTheDefaultsAndBadOnesAreOneLine() throws {
        let keys = try KeyMap(bindings: ["play-pause": ["P", "space"], "quit": ["Q"]])
        #expect(keys.action(for: .character("P")) == .playPause)
        #expect(keys.action(for: .character("q")) == nil)
        #expect(keys.action(for: .character("Q")) == .quit)
        #expect(keys.action(for: .pageDown) == .pageDown)
        #expect(throws: KeyMapError.self) { try KeyMap(bindings: ["fly": ["x"]]) }
        #expect(throws: KeyMapError.self) { try KeyMap(bindings: ["quit": ["ctrl-alt-x"]]) }
        #expect(throws: KeyMapError.self) { try KeyMap(bindings: ["quit": []]) }
    }
}

/// An episode's page in the details pane ends with its soundbites (Enter
/// plays from one) and the show's own people and funding links.
struct EpisodePageTests {
    @Test func soundbitesAndTheShowsPeopleAndFunding() {
        let episode = DBusValue.variantDictionary([
            "id": .int64(5), "podcastId": .int64(1), "title": .string("One"), "podcastTitle": .string("Two Show"),
            "description": .string("Notes."), "position": .double(0), "completed": .bool(false),
            "soundbites": .array(.dictionary(key: .string, value: .variant), [.variantDictionary(["start": .double(72.5), "duration": .double(20), "title": .string("The best bit")])]),
        ])
        let podcast = DBusValue.variantDictionary([
            "persons": .array(.dictionary(key: .string, value: .variant), [.variantDictionary(["name": .string("Ann Host"), "role": .string("host")])]),
            "funding": .array(.dictionary(key: .string, value: .variant), [.variantDictionary(["url": .string("https://two.example/support"), "text": .string("Support us")])]),
            "medium": .string("music"),
            "podroll": .array(.dictionary(key: .string, value: .variant), [
                .variantDictionary(["feedGuid": .string("aaa"), "feedURL": .string("https://o.example/f.xml"), "title": .string("Other Show"),
                                    "subscribed": .bool(false)]),
                .variantDictionary(["feedGuid": .string("bbb"), "subscribed": .bool(false)]),
                .variantDictionary(["feedGuid": .string("ccc"), "title": .string("Had"), "subscribed": .bool(true)]),
            ]),
            "trailers": .array(.dictionary(key: .string, value: .variant), [.variantDictionary(["url": .string("https://two.example/t.mp3"), "title": .string("Season two")])]),
        ])
        let page = Items.page(episode, chapters: [], podcast: podcast)
        let lines = page?.lines(width: 60) ?? []
        let texts = lines.map(\.text)
        #expect(texts.contains("Soundbites") && texts.contains("  1:12 The best bit"), "\(texts)")
        #expect(lines.first { $0.text == "  1:12 The best bit" }?.action == .playFrom(72.5))
        #expect(texts.contains("The show's people") && texts.contains("  Ann Host (host)"))
        #expect(lines.first { $0.text.contains("Support us") }?.action == .open("https://two.example/support"))
        #expect(lines.first { $0.text == "  Season two" }?.action == .playURL("https://two.example/t.mp3"))
        #expect(texts.contains("Two Show · music"), "\(texts)")
        #expect(lines.first { $0.text == "  Other Show" }?.action == .subscribe("https://o.example/f.xml"))
        #expect(lines.first { $0.text == "  podcast:guid bbb" }?.action == .subscribe("guid:bbb"))
        #expect(lines.first { $0.text == "  Had (subscribed)" }.map { $0.action == nil } == true)
        // Without the podcast's item (it could not be read), the episode's own page stands.
        #expect(Items.page(episode, chapters: [])?.lines(width: 60).contains { $0.text == "Support the show" } == false)
    }
}
