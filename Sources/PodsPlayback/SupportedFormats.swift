internal import CGStreamer

/// The audio formats the installed GStreamer plugins can play.
public enum SupportedFormats {
    /// Each MIME type with the elements it needs (any one of each group).
    private static let requirements: [(mime: [String], needs: [[String]])] = [
        (["audio/mpeg", "audio/mp3", "audio/x-mp3"], [["mpegaudioparse"], ["mpg123audiodec", "avdec_mp3"]]),
        (["audio/ogg", "audio/x-vorbis+ogg", "audio/vorbis"], [["oggdemux"], ["vorbisdec"]]),
        (["audio/opus", "audio/x-opus+ogg"], [["oggdemux"], ["opusdec", "avdec_opus"]]),
        (["audio/flac", "audio/x-flac"], [["flacparse"], ["flacdec", "avdec_flac"]]),
        (["audio/mp4", "audio/x-m4a", "audio/aac", "audio/x-aac"], [["qtdemux"], ["avdec_aac", "faad", "fdkaacdec"]]),
        (["audio/wav", "audio/x-wav"], [["wavparse"]]),
        (["audio/webm"], [["matroskademux"], ["opusdec", "vorbisdec", "avdec_opus"]]),
    ]

    /// MIME types whose demuxer and decoder are installed, in a stable order.
    public static func mimeTypes() -> [String] {
        PlaybackEngine.ensureGStreamer()
        return requirements.filter { entry in
            entry.needs.allSatisfy { group in group.contains(where: isInstalled) }
        }.flatMap(\.mime)
    }

    private static func isInstalled(_ element: String) -> Bool {
        guard let factory = gst_element_factory_find(element) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(factory))
        return true
    }
}
