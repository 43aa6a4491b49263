import Foundation
import PodsFeedParser
import PodsTranscripts
import Testing

@Suite(.timeLimit(.minutes(10))) struct TranscriptTests {
    @Test func srt() throws {
        let (format, cues) = try Transcript.parse(Data("""
            1\r
            00:00:01,000 --> 00:00:04,500\r
            Alice: Welcome to the show.\r
            \r
            2\r
            00:01:02,250 --> 00:01:05,000\r
            <i>Music</i> plays\r
            and fades\r
            """.utf8))
        #expect(format == .srt)
        #expect(cues == [
            TranscriptCue(start: 1, end: 4.5, speaker: "Alice", text: "Welcome to the show."),
            TranscriptCue(start: 62.25, end: 65, text: "Music plays and fades"),
        ])
    }

    @Test func webVTT() throws {
        let (format, cues) = try Transcript.parse(Data("""
            WEBVTT

            intro
            00:01.000 --> 00:03.000
            <v Bob>Hello there</v>

            01:00:00.000 --> 01:00:02.000 align:start
            The end
            """.utf8))
        #expect(format == .vtt)
        #expect(cues == [TranscriptCue(start: 1, end: 3, speaker: "Bob", text: "Hello there"),
                         TranscriptCue(start: 3600, end: 3602, text: "The end")])
    }

    @Test func podcastJSON() throws {
        let (format, cues) = try Transcript.parse(Data("""
            {"version": "1.0.0", "segments": [{"speaker": "Ann", "startTime": 0.5, "endTime": 2, "body": "Hi"},
              {"startTime": 2, "endTime": 3, "body": "there"}, {"startTime": 3}]}
            """.utf8))
        #expect(format == .json)
        #expect(cues == [TranscriptCue(start: 0.5, end: 2, speaker: "Ann", text: "Hi"), TranscriptCue(start: 2, end: 3, text: "there")])
    }

    @Test func htmlAndPlainText() throws {
        let html = try Transcript.parse(Data("<html><body><p><cite>Ann:</cite> Caf&eacute; talk</p><p>More &amp; more</p></body></html>".utf8))
        #expect(html.format == .html && html.cues.map(\.text) == ["Ann: Café talk", "More & more"])
        let plain = try Transcript.parse(Data("First line\n\nSecond line\n".utf8))
        #expect(plain.format == .text && plain.cues.map(\.text) == ["First line", "Second line"])
    }

    @Test func whatIsNotATranscriptIsOneError() {
        #expect(throws: TranscriptError.self) { try Transcript.parse(Data([0x25, 0x50, 0x44, 0x46, 0, 1, 2])) }
        #expect(throws: TranscriptError.self) { try Transcript.parse(Data(#"{"chapters": []}"#.utf8)) }
    }

    @Test func showNotesLinksAndParagraphs() {
        let html = """
            <p>Hello <b>world</b>.</p><p>See <a href="https://example.com/a?x=1&amp;y=2">the site</a> and
            <A HREF='https://example.com/b'>another</A>, <a href="https://example.com/a?x=1&amp;y=2">again</a>,
            <a href="javascript:alert(1)">no</a> <a name="x">anchor</a></p><ul><li>One</li><li>Two</li></ul>
            """
        #expect(HTMLDocument.paragraphs(html) == ["Hello world.", "See the site and another, again, no anchor", "One", "Two"])
        #expect(HTMLDocument.links(html) == [
            HTMLDocument.Link(text: "the site", url: "https://example.com/a?x=1&y=2"),
            HTMLDocument.Link(text: "another", url: "https://example.com/b"),
        ])
    }
}

/// Cue times no episode has (1e23, 1e308, infinity, NaN, negative,
/// `Int64.max + 1`) in each timed format: the cue stays, its time goes.
@Suite(.timeLimit(.minutes(10))) struct AbsurdCueTimeTests {
    @Test(arguments: ["1e23", "1e308", "inf", "nan", "-1", "9223372036854775808"])
    func jsonCueTimesNoEpisodeHasAreDropped(_ value: String) throws {
        let json = #"{"version":"1.0.0","segments":[{"startTime":\#(value),"endTime":\#(value),"body":"one"},{"startTime":1,"endTime":2,"body":"two"}]}"#
        guard let parsed = try? Transcript.parse(Data(json.utf8)) else { return }  // not JSON at all (inf, nan): one error is fine
        #expect(parsed.cues.allSatisfy { cue in [cue.start, cue.end].allSatisfy { $0.map { $0.isFinite && $0 >= 0 && $0 <= MediaSeconds.maximum } ?? true } })
        #expect(parsed.cues.contains { $0.text == "two" && $0.start == 1 })
    }

    @Test(arguments: ["99999999999:00:00,000", "00:00:1e23", "-1:00:00,000", "00:00:inf", "00:00:nan"])
    func srtAndVTTTimesNoEpisodeHasDropTheirCue(_ time: String) throws {
        for text in ["1\n\(time) --> 00:00:02,000\nfar\n\n2\n00:00:01,000 --> 00:00:02,000\nnear\n",
                     "WEBVTT\n\n\(time.replacingOccurrences(of: ",", with: ".")) --> 00:02.000\nfar\n\n00:01.000 --> 00:02.000\nnear\n"] {
            let parsed = try Transcript.parse(Data(text.utf8))
            #expect(parsed.cues.allSatisfy { ($0.start ?? 0) <= MediaSeconds.maximum && ($0.start ?? 0) >= 0 }, "\(time)")
            #expect(parsed.cues.contains { $0.text == "near" })
        }
    }

    /// `-00:00:05,000` is no time (ADVERSARIAL-5, 10: `Double("-00")` is −0.0, which is not below zero, and the cue played at 0:05).
    @Test func aNegativeOrSignedSRTTimeIsNoTime() throws {
        for stamp in ["-00:00:05,000", "00:-01:05,000", "+00:00:05,000", "00:00:0x5,000", "00:00:5e1,000"] {
            let srt = "1\n\(stamp) --> 00:00:09,000\nbad\n\n2\n00:00:10,000 --> 00:00:12,000\ngood\n"
            let cues = try Transcript.parse(Data(srt.utf8)).cues
            #expect(!cues.contains { $0.text == "bad" && $0.start != nil }, "\(stamp): \(cues)")
            #expect(cues.contains { $0.text == "good" && $0.start == 10 })
        }
    }

    /// Cues read back from the library pass the parser's checks: an older
    /// Pods kept a JSON transcript's times as they came (REVIEW-4, N3).
    @Test func storedCuesAreCheckedAsTheyAreDecoded() throws {
        let stored = #"[{"start":0,"end":2,"text":"ok"},{"start":1e300,"end":-1,"text":"huge"},{"start":-5,"text":"negative"},"#
            + #"{"start":"x","text":"typed wrong"},{"text":"\#(String(repeating: "w", count: 100_000))"}]"#
        let cues = try JSONDecoder().decode([TranscriptCue].self, from: Data(stored.utf8))
        #expect(cues.map(\.start) == [0, nil, nil, nil, nil])
        #expect(cues.map(\.end) == [2, nil, nil, nil, nil])
        #expect(cues.last.map { $0.text.utf8.count <= 16_384 } == true)
        // What the library keeps is what it reads back.
        let kept = try JSONDecoder().decode([TranscriptCue].self, from: JSONEncoder().encode(cues))
        #expect(kept == cues)
    }
}
