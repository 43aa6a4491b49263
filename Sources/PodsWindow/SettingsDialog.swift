import PodsClient
import PodsGtk

/// The settings `pods config` lists, in a window over the main one: the
/// player's own (Preferences) or one podcast's (its speed, skips, silence
/// trimming, loudness, rules). A switch for what is on or off, a field for
/// the rest (Enter or its Set button sets it; podsd checks it and says why
/// it refuses), and
/// Reset where a value was set: back to the player's, or the default.
@MainActor
final class SettingsDialog {
    private let window: PreferencesWindow
    private let backend: WindowBackend
    private let podcast: Int64?
    private var controls: [String: (entry: Entry?, toggle: Switch?, reset: Button)] = [:]

    init(over parent: Window, backend: WindowBackend, podcast: (id: Int64, title: String)?, settings: [SettingRow]) {
        self.backend = backend
        self.podcast = podcast?.id
        window = podcast.map {
            PreferencesWindow(over: parent, title: "Settings of \($0.title)",
                              description: "This podcast’s own values; Reset goes back to the player’s.")
        } ?? PreferencesWindow(over: parent, title: "Preferences", description: "The player’s settings, kept in config.toml.")
        for setting in settings {
            let reset = Button(icon: "edit-undo-symbolic", name: "Reset \(setting.key)")
            reset.style("flat")
            reset.onClick { [unowned self] in self.unset(setting.key) }
            if setting.isSwitch {
                let toggle = Switch(name: setting.key)
                toggle.onFlip { [unowned self] on in self.set(setting.key, on ? "true" : "false") }
                controls[setting.key] = (nil, toggle, reset)
                window.add(title: setting.key, help: setting.help, controls: [toggle, reset])
            } else {
                let entry = Entry(name: setting.key, placeholder: setting.defaultValue)
                if setting.isSecret { entry.hidesText() }
                entry.onActivate { [unowned self, unowned entry] in self.set(setting.key, entry.text) }
                let apply = Button(icon: "object-select-symbolic", name: "Set \(setting.key)")
                apply.style("flat")
                apply.onClick { [unowned self, unowned entry] in self.set(setting.key, entry.text) }
                controls[setting.key] = (entry, nil, reset)
                window.add(title: setting.key, help: setting.help, controls: [entry, apply, reset])
            }
        }
        show(settings)
    }

    func present() { window.present() }

    private func show(_ settings: [SettingRow]) {
        for setting in settings {
            guard let control = controls[setting.key] else { continue }
            if setting.isSecret {
                // Never shown back, not even as dots: the field says whether one is set, and takes a new one.
                control.entry?.text = ""
                control.entry?.placeholder = setting.value.isEmpty ? "not set" : "set (type a new one to replace it)"
            } else {
                control.entry?.text = setting.value
            }
            control.toggle?.isOn = setting.value == "true"
            // Only a value set here can be reset: a podcast's own, or the player's in config.toml.
            control.reset.isSensitive = podcast == nil ? setting.source != "default" : setting.source == "podcast"
        }
    }

    private func set(_ key: String, _ value: String) {
        change { [backend, podcast] () throws(PlayerClient.Failure) in
            try await backend.pods.setConfig(podcast: podcast.map(String.init), key: key, value: value)
        }
    }

    private func unset(_ key: String) {
        change { [backend, podcast] () throws(PlayerClient.Failure) in
            try await backend.pods.unsetConfig(podcast: podcast.map(String.init), key: key)
        }
    }

    /// Does `body`, then shows what podsd holds now (a refused value goes back to the one in force).
    private func change(_ body: @escaping @Sendable () async throws(PlayerClient.Failure) -> Void) {
        Task {
            do throws(PlayerClient.Failure) { try await body() } catch { window.toast(error.description) }
            let now = (try? await backend.pods.config(podcast: podcast.map(String.init), key: nil)) ?? []
            show(now.compactMap(Items.setting))
        }
    }
}
