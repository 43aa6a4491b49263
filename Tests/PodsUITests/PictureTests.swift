import Foundation
import PodsClient
import PodsTerminal
import PodsUI
import Testing

/// Artwork in the details pane: when pictures are sent, how, and the room the pane leaves.
@Suite(.timeLimit(.minutes(10))) struct PictureTests {
    @Test func autoSendsPicturesOnlyToTerminalsThatSayTheyShowThem() {
        let yes: [[String: String]] = [
            ["TERM": "xterm-kitty"], ["TERM": "xterm-256color", "KITTY_WINDOW_ID": "3"], ["TERM_PROGRAM": "WezTerm"],
            ["TERM": "xterm-ghostty"], ["KONSOLE_VERSION": "230805"],
        ]
        let no: [[String: String]] = [
            [:], ["TERM": "xterm-256color"], ["TERM": "xterm-kitty", "TMUX": "/tmp/tmux-1000/default,1,0"],
            ["KITTY_WINDOW_ID": "3", "STY": "1.pts-0"], ["TERM": "screen-256color", "KITTY_WINDOW_ID": "3"],
            ["KONSOLE_VERSION": "211200"], ["TERM": "linux"],
        ]
        for environment in yes { #expect(TerminalPictures.enabled(.auto, environment: environment), "\(environment)") }
        for environment in no { #expect(!TerminalPictures.enabled(.auto, environment: environment), "\(environment)") }
        #expect(TerminalPictures.enabled(.kitty, environment: ["TERM": "screen"]))
        #expect(!TerminalPictures.enabled(.off, environment: ["TERM": "xterm-kitty"]))
    }

    /// A picture goes in chunks of at most 4096 base64 bytes; only the first
    /// says what it is; every one asks for no answer but through the first.
    @Test func aPictureGoesInChunksTheProtocolTakes() throws {
        let png = [UInt8]([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let text = String(decoding: TerminalPictures.show(png: png, id: 1, columns: 24, rows: 12), as: UTF8.self)
        let chunks = text.components(separatedBy: "\u{1B}\\").filter { !$0.isEmpty }
        #expect(chunks.count == 4)  // 13,344 base64 bytes
        #expect(chunks.allSatisfy { $0.hasPrefix("\u{1B}_G") })
        let controls = chunks.map { String($0.dropFirst(3).prefix { $0 != ";" }) }
        #expect(controls == ["a=T,f=100,t=d,i=1,q=2,C=1,c=24,r=12,m=1", "m=1", "m=1", "m=0"])
        let payload = chunks.map { String($0.drop { $0 != ";" }.dropFirst()) }
        #expect(payload.dropLast().allSatisfy { $0.count == 4096 })
        #expect(Data(base64Encoded: payload.joined()).map { [UInt8]($0) } == png)
        #expect(String(decoding: TerminalPictures.remove(id: 1), as: UTF8.self) == "\u{1B}_Ga=d,d=I,i=1,q=2\u{1B}\\")
    }

    /// With a picture, the page's text starts below it; without (none yet,
    /// another episode's, the help open, pictures off) it starts at the top.
    @Test func thePaneLeavesRoomForThePictureOfItsOwnEpisodeOnly() throws {
        var model = ScreenTests.model()
        model.showsPictures = true
        let page = EpisodeDetails(episodeID: 2, title: "Episode 2", facts: "播客 Show", paragraphs: ["Notes here."], links: [],
                               chapters: [], people: [])
        model.show(page, width: Screen.detailsWidth(model.layout, columns: 100))
        #expect(Screen.pictureFrame(model, rows: 30, columns: 100) == nil)
        model.picture = EpisodePicture(episodeID: 2, png: [0x89])
        let frame = try #require(Screen.pictureFrame(model, rows: 30, columns: 100))
        #expect(frame == PictureFrame(row: 2, column: 67, columns: 24, rows: 12))
        let canvas = Screen.render(model, rows: 30, columns: 100, keys: KeyMap())
        #expect(canvas.text(row: 2).hasSuffix("│" + String(repeating: " ", count: 34)))
        #expect(canvas.text(row: 2 + frame.rows + 1).contains("Episode 2"))
        #expect(Screen.detailsHeight(model, rows: 30, columns: 100) == Screen.listHeight(rows: 30) - 13)
        // The smallest terminal still has room for a smaller one.
        #expect(Screen.pictureFrame(model, rows: 15, columns: 60).map { $0.rows >= 4 && $0.columns == 2 * $0.rows } == true)
        for change in [{ (model: inout UIModel) in model.picture = EpisodePicture(episodeID: 3, png: [0x89]) },
                       { $0.showsHelp = true }, { $0.showsPictures = false }] {
            var other = model
            change(&other)
            #expect(Screen.pictureFrame(other, rows: 30, columns: 100) == nil)
            #expect(Screen.render(other, rows: 30, columns: 100, keys: KeyMap()).text(row: 2).contains("Episode 2") || other.showsHelp)
        }
    }
}
