import PodsFeedParser
import PodsPlayback

extension SupportedFormats {
    /// The MIME types of the formats the installed plugins play (MPRIS
    /// `SupportedMimeTypes`), in `EnclosureChoice.formats`' order.
    package static func mimeTypes() -> [String] {
        let playable = Set(playable())
        return EnclosureChoice.formats.filter { playable.contains($0.key) }.flatMap(\.value)
    }
}
