/// Which of an episode's enclosures plays and downloads: the feed's own
/// (the first), unless the listener prefers a format an alternate has
/// (`preferred-format`), and never one whose type the installed GStreamer
/// cannot decode while another it can is there.
public enum EnclosureChoice {
    /// The audio formats, each with the MIME types feeds and servers give
    /// it: the one table of them. PodsPlayback's `SupportedFormats` says
    /// which of these names the installed plugins play; MPRIS
    /// `SupportedMimeTypes` lists their types; the `preferred-format`
    /// setting chooses among the first five.
    public static let formats: KeyValuePairs<String, [String]> = [
        "mp3": ["audio/mpeg", "audio/mp3", "audio/x-mp3", "audio/mpeg3", "audio/x-mpeg"],
        "aac": ["audio/mp4", "audio/x-m4a", "audio/m4a", "audio/aac", "audio/x-aac"],
        "opus": ["audio/opus", "audio/x-opus+ogg"],
        "vorbis": ["audio/ogg", "audio/vorbis", "audio/x-vorbis+ogg"],
        "flac": ["audio/flac", "audio/x-flac"],
        "wav": ["audio/wav", "audio/x-wav"],
        "webm": ["audio/webm"],
    ]

    /// The format a MIME type names, case and parameters aside (an Ogg file
    /// that says `codecs=opus` is Opus); nil for a type no format here has
    /// (`video/mp4`, `application/octet-stream`).
    public static func format(ofType type: String) -> String? {
        let parts = type.lowercased().split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let mime = parts.first else { return nil }
        if mime == "audio/ogg", parts.dropFirst().contains(where: { $0.hasPrefix("codecs=") && $0.contains("opus") }) { return "opus" }
        return formats.first(where: { $0.value.contains(mime) })?.key
    }

    /// `preferred`: "feed" or a key of `formats`; `playable`: the formats
    /// the installed plugins decode (`SupportedFormats`). An enclosure
    /// whose type names no format here, or none, counts as playable
    /// (GStreamer finds out). Among several of the preferred format, the
    /// highest bitrate.
    public static func choose(_ enclosures: [Enclosure], preferred: String, playable: Set<String>) -> Enclosure? {
        func format(_ enclosure: Enclosure) -> String? { enclosure.type.flatMap(Self.format(ofType:)) }
        func canPlay(_ enclosure: Enclosure) -> Bool { format(enclosure).map(playable.contains) ?? true }
        if preferred != "feed" {
            let matching = enclosures.filter { format($0) == preferred && canPlay($0) }
            // max(by:) keeps the last of equals; the first in feed order wins ties.
            if let best = matching.reversed().max(by: { ($0.bitrate ?? 0) < ($1.bitrate ?? 0) }) { return best }
        }
        return enclosures.first(where: canPlay) ?? enclosures.first
    }
}
