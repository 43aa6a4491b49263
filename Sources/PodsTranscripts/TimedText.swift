import Foundation
import PodsFeedParser

/// SRT and WebVTT: blocks of an optional id, a `start --> end` line and text.
enum TimedText {
    static func cues(_ text: String, format: Transcript.Format) -> [TranscriptCue] {
        var cues: [TranscriptCue] = []
        for block in text.components(separatedBy: "\n\n") {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
            guard let timing = lines.firstIndex(where: { $0.contains("-->") }) else { continue }
            let parts = lines[timing].components(separatedBy: "-->")
            guard parts.count == 2, let start = seconds(parts[0]),
                  let end = seconds(parts[1].split(separator: " ").first.map(String.init) ?? "") else { continue }
            var body = lines[(timing + 1)...].joined(separator: " ")
            var speaker: String?
            if format == .vtt, body.hasPrefix("<v"), let close = body.firstIndex(of: ">") {
                speaker = body[body.index(body.startIndex, offsetBy: 2)..<close].trimmingCharacters(in: .whitespaces)
                    .replacingOccurrences(of: ".", with: "", options: .anchored)
                body = String(body[body.index(after: close)...])
            }
            body = stripTags(body).trimmingCharacters(in: .whitespaces)
            if speaker == nil, let colon = body.firstIndex(of: ":"), body.distance(from: body.startIndex, to: colon) < 30,
               body[..<colon].allSatisfy({ $0.isLetter || $0 == " " || $0 == "." }), body[..<colon].first?.isUppercase == true {
                speaker = String(body[..<colon])
                body = body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            cues.append(TranscriptCue(start: start, end: end, speaker: speaker?.isEmpty == false ? speaker : nil, text: body))
            if cues.count >= Transcript.maximumCues { break }
        }
        return cues
    }

    /// `01:02:03,500`, `01:02:03.500` or `02:03.500`.
    static func seconds(_ text: String) -> Double? {
        let parts = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".").split(separator: ":")
        guard (2...3).contains(parts.count) else { return nil }
        var total = 0.0
        for part in parts {
            // Digits and a point only: `Double("-00")` is −0.0, which is not below zero (ADVERSARIAL-5, 10).
            guard part.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(part), value.isFinite else { return nil }
            total = total * 60 + value
        }
        return MediaSeconds.checked(total)
    }

    /// Drops `<i>`, `</v>`, `<c.yellow>` and other inline tags.
    static func stripTags(_ text: String) -> String {
        var result = ""
        var inTag = false
        for character in text {
            if character == "<" { inTag = true } else if character == ">" { inTag = false } else if !inTag { result.append(character) }
        }
        return result
    }
}

/// The Podcasting 2.0 JSON transcript: `{"segments": [{"speaker", "startTime", "endTime", "body"}]}`.
enum JSONTranscript {
    private struct Document: Decodable {
        var segments: [Segment]
    }

    private struct Segment: Decodable {
        var speaker: String?
        var startTime: Double?
        var endTime: Double?
        var body: String?
    }

    static func cues(_ data: Data) -> [TranscriptCue]? {
        guard let document = try? JSONDecoder().decode(Document.self, from: data) else { return nil }
        return document.segments.prefix(Transcript.maximumCues).compactMap { segment in
            guard let body = segment.body else { return nil }
            // Times no episode has are dropped: the cue stays, untimed.
            return TranscriptCue(start: MediaSeconds.checked(segment.startTime), end: MediaSeconds.checked(segment.endTime),
                                 speaker: segment.speaker, text: body)
        }
    }
}

/// An HTML transcript: its paragraphs as untimed cues.
enum HTMLTranscript {
    static func cues(_ html: String) -> [TranscriptCue] {
        HTMLDocument.paragraphs(html).prefix(Transcript.maximumCues).map { TranscriptCue(text: $0) }
    }
}
