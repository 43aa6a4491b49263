import PodsPlayback
import PodsSettings

/// `pods config KEY VALUE` and `pods config --unset KEY`, for the player
/// or for one podcast, whichever interface asks: the value checked, then
/// written on the library's lane (never on a thread that answers media
/// keys). The store announces the change to its followers (`Session`
/// registers each one), so nothing here knows who they are.
package struct SettingsEdits: Sendable {
    let preferences: PreferenceStore

    package init(preferences: PreferenceStore) { self.preferences = preferences }

    /// Sets the setting `name` to `text` (as `pods config` spells values).
    /// An audio sink must be one GStreamer can make, checked before it is written.
    package func set(_ name: String, _ text: String, podcast: Int64?) async throws(SessionError) {
        let key = try Self.key(name)
        if key == .audioSink, !text.isEmpty {
            do throws(PlaybackError) {
                try PlaybackEngine.checkBusAudioSink(text)
                try PlaybackEngine.checkAudioSink(text)
            } catch {
                throw SessionError.invalidArgument(error.message)
            }
        }
        let value: SettingValue
        do throws(SettingsError) { value = try key.parse(text) } catch { throw SessionError.invalidArgument(error.message) }
        try await write(key, value, podcast: podcast, failure: SessionError.invalidArgument)
    }

    /// Sets `name` back to its default (for `podcast`: to the player's value).
    package func unset(_ name: String, podcast: Int64?) async throws(SessionError) {
        try await write(try Self.key(name), nil, podcast: podcast, failure: SessionError.failed)
    }

    private func write(_ key: SettingKey, _ value: SettingValue?, podcast: Int64?,
                       failure: @escaping @Sendable (String) -> SessionError) async throws(SessionError) {
        let preferences = preferences
        do throws(SettingsError) {
            try await LibraryWork.lane.run { () throws(SettingsError) in try preferences.set(key, value, podcast: podcast) }
        } catch { throw failure(error.message) }
    }

    /// The key named `name`; an unknown one is the listener's mistake.
    package static func key(_ name: String) throws(SessionError) -> SettingKey {
        do throws(SettingsError) { return try SettingKey.named(name) } catch { throw SessionError.invalidArgument(error.message) }
    }
}
