import PodsFeedParser
import PodsPlayback
import PodsSession
import PodsSettings
import Testing

/// One table of audio formats: the plugins' requirements, the MIME types
/// and the `preferred-format` setting name the same formats.
struct SupportedFormatsTests {
    @Test func thePluginsTheTypesAndTheSettingNameTheSameFormats() {
        #expect(SupportedFormats.requirements.map(\.key) == EnclosureChoice.formats.map(\.key))
        guard case .choice(let words) = SettingKey.preferredFormat.kind else {
            Issue.record("preferred-format is no choice")
            return
        }
        #expect(words.first == "feed" && Set(words.dropFirst()).isSubset(of: EnclosureChoice.formats.map(\.key)))
        // MPRIS SupportedMimeTypes: every type of each format that plays here, the samples' among them.
        let types = SupportedFormats.mimeTypes()
        #expect(types.contains("audio/mpeg") && types.contains("audio/ogg") && types.contains("audio/mpeg3"), "\(types)")
        #expect(Set(types).count == types.count)
    }
}
