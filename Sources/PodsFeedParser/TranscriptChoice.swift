/// Which of an item's `podcast:transcript`s Pods keeps: one in the
/// podcast's language first (a transcript in another cannot follow what is
/// heard), then a timed one (JSON, WebVTT, SRT: it can follow playback),
/// then HTML over plain text; among equals, the first.
enum TranscriptChoice {
    static func rank(type: String?, language: String?, rel: String?, podcastLanguage: String?) -> Int {
        let kind = (type ?? "").lowercased()
        let timed = ["application/json", "text/vtt", "application/srt", "application/x-subrip", "text/srt"]
            .contains { kind.hasPrefix($0) } || rel?.lowercased() == "captions"
        let typeRank = timed ? 4 : kind.hasPrefix("text/html") ? 2 : kind.hasPrefix("text/plain") ? 1 : 0
        return (speaksTheLanguage(language, podcastLanguage) ? 10 : 0) + typeRank
    }

    /// Whether a transcript in `language` is in the podcast's: the same
    /// primary subtag (`en-US` is `en`), or either not said.
    private static func speaksTheLanguage(_ language: String?, _ podcastLanguage: String?) -> Bool {
        func primary(_ tag: String?) -> String? {
            guard let tag, let first = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first, !first.isEmpty else { return nil }
            return first.lowercased()
        }
        guard let mine = primary(language), let theirs = primary(podcastLanguage) else { return true }
        return mine == theirs
    }
}
