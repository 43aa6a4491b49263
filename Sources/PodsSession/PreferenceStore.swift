import Foundation
import Logging
import PodsChapters
import PodsFeedParser
import PodsLibrary
import PodsPlayback
import PodsPlayer
import PodsSettings
import Synchronization

/// What the player does for one podcast's episodes: the config file's
/// values with the podcast's own over them.
package struct PlaybackPreferences: Sendable, Equatable {
    /// Set only when the file or the podcast names a speed; otherwise the
    /// speed in use (kept across restarts) stays.
    package var speed: Double?
    package var skips = SkipIntervals()
    package var skipIntro = 0.0
    package var skipOutro = 0.0
    package var trimSilence = false
    /// The loudness levelled to, LUFS; nil: not levelled.
    package var loudnessTarget: Double?
    package var nextAction = NextAction.chapter
    /// Seconds, or a share of the episode.
    package var completeWithin = SettingValue.number(0)
    package var autoNext = true
    package var pauseOnOutputLoss = true
    /// Chapters played past (`skip-chapters`).
    package var skipChapters: TitlePattern?

    /// How much of an episode of `duration` may be left for it to count as played.
    package func completionStretch(duration: Duration?) -> Duration {
        switch completeWithin {
        case .percent(let share): duration.map { $0 * (share / 100) } ?? .zero
        case .number(let seconds): .mediaSeconds(seconds)
        case .bool, .text: .zero
        }
    }
}

/// How far `pods forward` and `pods back` go by default, in seconds.
package struct SkipIntervals: Sendable, Equatable {
    package var forward = 30.0
    package var back = 10.0
}

/// Some settings' values for every podcast (`PreferenceStore.everyPodcast`).
package struct PodcastValues: Sendable {
    let global: [SettingKey: SettingValue]
    /// Podcasts' own values (only podcasts that set one).
    let own: [Int64: [SettingKey: SettingValue]]

    package func value(_ key: SettingKey, podcast: Int64) -> SettingValue {
        own[podcast]?[key] ?? global[key] ?? key.defaultValue
    }
}

/// One setting as `pods config` lists it.
package struct SettingEntry: Sendable, Equatable {
    package var key: SettingKey
    package var value: SettingValue
    /// `default`, `config` (the file, or a podsd flag) or `podcast`.
    package var source: String
}

/// Settings that changed: `keys`, for `podcast`'s episodes (nil: the
/// player's own, config.toml's).
package struct SettingsChange: Sendable, Equatable {
    package var keys: Set<SettingKey>
    package var podcast: Int64?

    /// Every key, for the player: what a start applies.
    package static let everything = SettingsChange(keys: Set(SettingKey.all), podcast: nil)
}

/// The settings in force: `config.toml` (read at start; `pods config`
/// writes it through here), podsd's flags over it, and each podcast's own
/// values (in the library) over those.
package final class PreferenceStore: Sendable {
    private let file: ConfigFile?
    private let library: Library?
    /// Values podsd's command line gave; they win over the file.
    private let overrides: [SettingKey: SettingValue]
    private let settings: Mutex<Settings>
    private let logger: Logger
    private struct Follower {
        var keys: Set<SettingKey>
        var follow: @Sendable (SettingsChange) -> Void
    }
    private let followers = Mutex<[Follower]>([])

    package init(file: ConfigFile?, library: Library?, overrides: [SettingKey: SettingValue], logger: Logger) {
        self.file = file
        self.library = library
        self.overrides = overrides
        self.logger = logger
        var loaded = Settings()
        if let file {
            do { loaded = try file.load() } catch {
                logger.error("\(error.message); using the defaults until it is fixed")
            }
        }
        settings = Mutex(loaded)
    }

    /// Reads the file again (it changed on disk) and announces the keys
    /// whose values it changed (not those podsd's flags hold); true when
    /// any did. A broken file is one log line naming the line and key, and
    /// the last good settings stay.
    @discardableResult
    package func reload() -> Bool {
        guard let file else { return false }
        let loaded: Settings
        do { loaded = try file.load() } catch {
            logger.error("\(error.message); keeping the settings read before")
            return false
        }
        let changed = settings.withLock { settings in
            defer { settings = loaded }
            return Set(settings.values.keys).union(loaded.values.keys).filter { settings.values[$0] != loaded.values[$0] }
        }.subtracting(overrides.keys)
        guard !changed.isEmpty else { return false }
        announce(SettingsChange(keys: changed, podcast: nil))
        return true
    }

    // MARK: - Following

    /// Calls `follow` after each change of any of `keys` (on the thread
    /// that made it: it hands work on, never waits), in the order followers came.
    package func follow(_ keys: Set<SettingKey>, _ follow: @escaping @Sendable (SettingsChange) -> Void) {
        followers.withLock { $0.append(Follower(keys: keys, follow: follow)) }
    }

    private func announce(_ change: SettingsChange) {
        for follower in followers.withLock({ $0 }) where !follower.keys.isDisjoint(with: change.keys) {
            follower.follow(SettingsChange(keys: change.keys.intersection(follower.keys), podcast: change.podcast))
        }
    }

    // MARK: - Reading

    /// `config.toml`'s place, when podsd has one.
    package var fileURL: URL? { file?.url }

    /// The value of `key` for `podcast`'s episodes (nil: the global value).
    package func value(_ key: SettingKey, podcast: Int64?) -> SettingValue { entry(key, podcast: podcast).value }

    package func entry(_ key: SettingKey, podcast: Int64?) -> SettingEntry {
        if key.perPodcast, let podcast, let text = try? library?.podcastSettings(podcast)[key.name],
           let value = try? key.parse(text) {
            return SettingEntry(key: key, value: value, source: "podcast")
        }
        if let value = overrides[key] ?? settings.withLock({ $0.values[key] }) {
            return SettingEntry(key: key, value: value, source: "config")
        }
        return SettingEntry(key: key, value: key.defaultValue, source: "default")
    }

    /// The values of `keys` for every podcast at once (one read of the
    /// library): what a podcast sets itself, else the player's value.
    package func everyPodcast(_ keys: [SettingKey]) -> PodcastValues {
        let stored = (try? library?.podcastSettings(keys: keys.map(\.name))) ?? [:]
        return PodcastValues(global: playerValues(keys), own: stored.mapValues { Self.parsed(keys, $0) }.filter { !$0.value.isEmpty })
    }

    /// The values of `keys` for one podcast (one read of its own settings),
    /// else the player's: what a podcast's rule needs, without every podcast's.
    /// (nil: a podcast not stored yet, which has none.)
    package func values(_ keys: [SettingKey], podcast: Int64?) -> PodcastValues {
        guard let podcast else { return PodcastValues(global: playerValues(keys), own: [:]) }
        let own = Self.parsed(keys, (try? library?.podcastSettings(podcast)) ?? [:])
        return PodcastValues(global: playerValues(keys), own: own.isEmpty ? [:] : [podcast: own])
    }

    private func playerValues(_ keys: [SettingKey]) -> [SettingKey: SettingValue] {
        var values: [SettingKey: SettingValue] = [:]
        for key in keys { values[key] = entry(key, podcast: nil).value }
        return values
    }

    /// A podcast's stored texts of `keys` (those kept per podcast) as values; unreadable ones left out.
    private static func parsed(_ keys: [SettingKey], _ stored: [String: String]) -> [SettingKey: SettingValue] {
        var values: [SettingKey: SettingValue] = [:]
        for key in keys where key.perPodcast {
            if let text = stored[key.name], let value = try? key.parse(text) { values[key] = value }
        }
        return values
    }

    package func entries(podcast: Int64?) -> [SettingEntry] {
        SettingKey.all.filter { podcast == nil || $0.perPodcast }.map { entry($0, podcast: podcast) }
    }

    /// The enclosure `episode` plays and downloads: the feed's own, or the
    /// `preferred-format` alternate, one the installed plugins can play
    /// (`EnclosureChoice`).
    package func audioURL(of episode: LibraryEpisode) -> String? {
        EnclosureChoice.choose(episode.episode.enclosures, preferred: value(.preferredFormat, podcast: episode.podcastId).textValue ?? "feed",
                               playable: SupportedFormats.installed)?.url
    }

    package func playback(for podcast: Int64?) -> PlaybackPreferences {
        func number(_ key: SettingKey) -> Double { value(key, podcast: podcast).numberValue ?? key.defaultValue.numberValue ?? 0 }
        var preferences = PlaybackPreferences()
        if entry(.speed, podcast: podcast).source != "default" { preferences.speed = number(.speed) }
        preferences.skips = SkipIntervals(forward: number(.skipForward), back: number(.skipBack))
        preferences.skipIntro = number(.skipIntro)
        preferences.skipOutro = number(.skipOutro)
        preferences.trimSilence = value(.trimSilence, podcast: podcast).boolValue ?? false
        if value(.loudness, podcast: podcast).textValue == "on" { preferences.loudnessTarget = number(.loudnessTarget) }
        preferences.nextAction = value(.nextAction, podcast: podcast).textValue.flatMap(NextAction.init) ?? .chapter
        preferences.completeWithin = value(.completeWithin, podcast: podcast)
        preferences.autoNext = value(.autoNext, podcast: nil).boolValue ?? true
        preferences.pauseOnOutputLoss = value(.pauseOnOutputLoss, podcast: nil).boolValue ?? true
        preferences.skipChapters = TitlePattern.optional(value(.skipChapters, podcast: podcast).textValue)
        return preferences
    }

    // MARK: - Writing

    /// Sets `key` (nil: back to the default) in the file, or for
    /// `podcast`, and announces it. Writes: call it off the threads that
    /// answer the bus (`SettingsEdits` does).
    package func set(_ key: SettingKey, _ value: SettingValue?, podcast: Int64?) throws(SettingsError) {
        if let podcast {
            guard key.perPodcast else { throw SettingsError("\(key.name) is set for the whole player, not per podcast") }
            guard let library else { throw SettingsError("podsd keeps no library, so no podcast settings") }
            do { try library.setPodcastSetting(podcast, key.name, value?.text) } catch {
                throw SettingsError(error.message)
            }
        } else {
            guard let file else { throw SettingsError("podsd has no config file") }
            try file.set(key, value)
            settings.withLock { settings in settings.values[key] = value }
        }
        announce(SettingsChange(keys: [key], podcast: podcast))
    }
}
