import PodsFeedParser
import PodsPlayback

extension SupportedFormats {
    /// The formats the installed plugins play, looked up once for the
    /// process (the enclosure choice and MPRIS both ask).
    package static let installed = Set(playable())

    /// The MIME types of the formats the installed plugins play (MPRIS
    /// `SupportedMimeTypes`), in `EnclosureChoice.formats`' order.
    package static func mimeTypes() -> [String] {
        EnclosureChoice.formats.filter { installed.contains($0.key) }.flatMap(\.value)
    }
}
