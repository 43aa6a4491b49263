import Foundation
import PodsFeedParser

/// One timed (or untimed) piece of a transcript.
public struct TranscriptCue: Sendable, Equatable, Codable {
    /// Seconds; nil in a transcript without times (HTML, plain text).
    public var start: Double?
    public var end: Double?
    public var speaker: String?
    public var text: String

    public init(start: Double? = nil, end: Double? = nil, speaker: String? = nil, text: String) {
        self.start = start
        self.end = end
        self.speaker = speaker
        self.text = text
    }

    /// The longest text and speaker a cue read back keeps (bytes).
    static let longestText = 16_384

    /// Cues read back (the library keeps them as JSON) are outside input: an
    /// older Pods stored a JSON transcript's times as they came, and a start
    /// of 1e300 killed podsd as it played (REVIEW-4, N3). They pass the
    /// checks a parsed cue passes, here, for every reader.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        start = MediaSeconds.checked(try? container.decodeIfPresent(Double.self, forKey: .start))
        end = MediaSeconds.checked(try? container.decodeIfPresent(Double.self, forKey: .end))
        speaker = (try? container.decodeIfPresent(String.self, forKey: .speaker)).flatMap { $0 }.map { Self.bounded($0) }
        text = Self.bounded(try container.decode(String.self, forKey: .text))
    }

    private static func bounded(_ text: String) -> String {
        guard text.utf8.count > longestText else { return text }
        return String(decoding: text.utf8.prefix(longestText), as: UTF8.self)
    }
}

/// A `podcast:transcript` file read into cues: SRT, WebVTT, the
/// Podcasting 2.0 JSON format, HTML or plain text, told apart by their
/// content (feeds often give the wrong `type`).
public enum Transcript {
    /// Cues kept at most (a three-hour show has a few thousand).
    static let maximumCues = 20_000

    public enum Format: String, Sendable {
        case srt, vtt, json, html, text
    }

    public static func parse(_ data: Data) throws(TranscriptError) -> (format: Format, cues: [TranscriptCue]) {
        guard !data.prefix(4096).contains(0) else { throw TranscriptError("the transcript is not text (a binary file), so Pods cannot read it") }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        text = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let head = text.drop { $0.isWhitespace }
        if head.hasPrefix("WEBVTT") { return (.vtt, TimedText.cues(text, format: .vtt)) }
        if head.hasPrefix("{") {
            guard let cues = JSONTranscript.cues(data) else { throw TranscriptError("the JSON is not a podcast transcript (no \"segments\")") }
            return (.json, cues)
        }
        if text.contains("-->") {
            let cues = TimedText.cues(text, format: .srt)
            if !cues.isEmpty { return (.srt, cues) }
        }
        if head.hasPrefix("<") { return (.html, HTMLTranscript.cues(text)) }
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return (.text, lines.prefix(maximumCues).map { TranscriptCue(text: $0) })
    }
}

/// Why a transcript could not be read; one line.
public struct TranscriptError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
