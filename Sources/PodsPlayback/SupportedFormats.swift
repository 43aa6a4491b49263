internal import CGStreamer

/// The audio formats the installed GStreamer plugins can play, by the
/// names of PodsFeedParser's `EnclosureChoice.formats` (which holds their
/// MIME types; `SupportedFormatsTests` keeps the two sets of names one).
public enum SupportedFormats {
    /// Each format with the elements it needs (any one of each group).
    public static let requirements: KeyValuePairs<String, [[String]]> = [
        "mp3": [["mpegaudioparse"], ["mpg123audiodec", "avdec_mp3"]],
        "aac": [["qtdemux"], ["avdec_aac", "faad", "fdkaacdec"]],
        "opus": [["oggdemux"], ["opusdec", "avdec_opus"]],
        "vorbis": [["oggdemux"], ["vorbisdec"]],
        "flac": [["flacparse"], ["flacdec", "avdec_flac"]],
        "wav": [["wavparse"]],
        "webm": [["matroskademux"], ["opusdec", "vorbisdec", "avdec_opus"]],
    ]

    /// The formats whose demuxer and decoder are installed, in the table's order.
    public static func playable() -> [String] {
        PlaybackEngine.ensureGStreamer()
        return requirements.filter { entry in
            entry.value.allSatisfy { group in group.contains(where: isInstalled) }
        }.map(\.key)
    }

    private static func isInstalled(_ element: String) -> Bool {
        guard let factory = gst_element_factory_find(element) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(factory))
        return true
    }
}
