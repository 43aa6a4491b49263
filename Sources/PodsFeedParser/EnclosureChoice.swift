/// Which of an episode's enclosures plays and downloads: the feed's own
/// (the first), unless the listener prefers a format an alternate has
/// (`preferred-format`), and never one whose type the installed GStreamer
/// cannot decode while another it can is there.
public enum EnclosureChoice {
    /// The `preferred-format` setting's formats, each with the MIME types feeds give it.
    public static let formats: [String: Set<String>] = [
        "mp3": ["audio/mpeg", "audio/mp3", "audio/x-mp3", "audio/mpeg3"],
        "aac": ["audio/mp4", "audio/x-m4a", "audio/m4a", "audio/aac", "audio/x-aac"],
        "opus": ["audio/opus", "audio/x-opus+ogg", "audio/ogg; codecs=opus"],
        "vorbis": ["audio/ogg", "audio/vorbis", "audio/x-vorbis+ogg"],
        "flac": ["audio/flac", "audio/x-flac"],
    ]

    /// `preferred`: "feed" or a key of `formats`; `playable`: the MIME
    /// types the installed plugins decode (`SupportedFormats`). An
    /// enclosure without a type counts as playable (GStreamer finds out).
    /// Among several of the preferred format, the highest bitrate.
    public static func choose(_ enclosures: [Enclosure], preferred: String, playable: Set<String>) -> Enclosure? {
        func mime(_ enclosure: Enclosure) -> String? {
            enclosure.type.map { $0.lowercased().split(separator: ";").first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "" }
        }
        func canPlay(_ enclosure: Enclosure) -> Bool { mime(enclosure).map(playable.contains) ?? true }
        if let wanted = formats[preferred] {
            let matching = enclosures.filter { enclosure in
                canPlay(enclosure) && (mime(enclosure).map(wanted.contains) == true || enclosure.type.map { wanted.contains($0.lowercased()) } == true)
            }
            // max(by:) keeps the last of equals; the first in feed order wins ties.
            if let best = matching.reversed().max(by: { ($0.bitrate ?? 0) < ($1.bitrate ?? 0) }) { return best }
        }
        return enclosures.first(where: canPlay) ?? enclosures.first
    }
}
