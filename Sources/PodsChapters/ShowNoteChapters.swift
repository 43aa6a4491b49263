/// Chapters written into show notes: lines such as "12:34 Topic",
/// "(1:02:03) – Topic" or "[00:00] Intro", as many shows list them when
/// their feed has no chapters. Read only when no other source has any
/// (`ChapterLoader`).
///
/// A time counts when it begins a line (after bullets, dashes or an
/// opening bracket) or a word (notes whose lines were run together); its
/// title is the words up to the next time. The list counts when its
/// times rise and there are at least three, or two beginning at 0:00,
/// so a stray "recorded at 10:30" is no chapter.
public enum ShowNoteChapters {
    /// Lines read at most, chapters kept at most, and a title's length.
    static let maximumLines = 5_000
    static let maximumChapters = 500
    static let maximumTitle = 200

    /// The chapters in `lines` (paragraphs of the notes, as plain text);
    /// none when they do not read as a chapter list. Times past
    /// `duration` (when known) end the list.
    public static func chapters(in lines: [String], duration: Double? = nil) -> [EpisodeChapter] {
        var found: [(start: Double, title: String)] = []
        for line in lines.prefix(maximumLines) {
            for entry in entries(in: Array(line.utf8.prefix(100_000))) {
                guard found.count < maximumChapters else { break }
                found.append(entry)
            }
        }
        if let duration = EpisodeChapter.checkedSeconds(duration), let past = found.firstIndex(where: { $0.start >= duration }) {
            found.removeSubrange(past...)
        }
        guard found.count >= 3 || (found.count == 2 && found[0].start == 0) else { return [] }
        for index in found.indices.dropFirst() where found[index].start <= found[index - 1].start { return [] }
        return found.enumerated().map { index, entry in
            EpisodeChapter(start: entry.start, title: entry.title.isEmpty ? "Chapter \(index + 1)" : entry.title, source: .notes)
        }
    }

    /// Each time in `line` that begins it or a run of words, with the words after it.
    private static func entries(in line: [UInt8]) -> [(start: Double, title: String)] {
        var result: [(start: Double, time: Range<Int>)] = []
        let lead = line.firstIndex { !isLead($0) } ?? line.count
        var index = lead
        while index < line.count {
            // A time begins the line (after what introduces a list item) or follows a space.
            let atStart = index == lead
            if (atStart || line[index - 1] == 0x20 || line[index - 1] == 0x28 || line[index - 1] == 0x5B),
               isDigit(line[index]), let (seconds, end) = time(in: line, from: index) {
                result.append((seconds, index..<end))
                index = end
            } else {
                index += 1
            }
        }
        return result.enumerated().map { number, found in
            let titleEnd = number + 1 < result.count ? result[number + 1].time.lowerBound : line.count
            return (found.start, title(line[found.time.upperBound..<titleEnd]))
        }
    }

    /// `m:ss` or `h:mm:ss` (each part after the first two digits) at `start`,
    /// not followed by a digit or another ':'; its seconds and where it ends.
    private static func time(in line: [UInt8], from start: Int) -> (Double, Int)? {
        var parts: [Int] = []
        var index = start
        while parts.count < 3 {
            var value = 0, digits = 0
            while index < line.count, isDigit(line[index]), digits < 3 {
                value = value * 10 + Int(line[index] - 0x30)
                digits += 1
                index += 1
            }
            guard digits > 0, parts.isEmpty ? digits <= 2 : digits == 2 else { return nil }
            if !parts.isEmpty, value > 59 { return nil }
            parts.append(value)
            guard index < line.count, line[index] == 0x3A, index + 1 < line.count, isDigit(line[index + 1]) else { break }
            index += 1
        }
        guard parts.count >= 2, index >= line.count || !(isDigit(line[index]) || line[index] == 0x3A) else { return nil }
        let seconds = parts.reduce(0) { $0 * 60 + $1 }
        return (Double(seconds), index)
    }

    /// The words after a time, without the brackets, dashes and colons that set them off.
    private static func title(_ bytes: ArraySlice<UInt8>) -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        let separators: Set<Character> = [" ", ")", "]", "-", "–", "—", ":", "|", "·", "•", "\t", ">"]
        while let first = text.first, separators.contains(first) { text.removeFirst() }
        while let last = text.last, last == " " || last == "(" || last == "[" || last == "-" || last == "–" || last == "," { text.removeLast() }
        return String(text.prefix(maximumTitle))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// What may come before a time at the start of a line: spaces, bullets, dashes, an opening bracket.
    private static func isLead(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x2D || byte == 0x2A || byte == 0x28 || byte == 0x5B || byte == 0x23 || byte >= 0x80
    }
}
