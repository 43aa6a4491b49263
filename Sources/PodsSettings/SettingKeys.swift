/// Every setting Pods knows, in the order the config file lists them.
extension SettingKey {
    // MARK: - Playback (a podcast may have its own)

    public static let speed = SettingKey(
        "speed", .number(0.5...3, unit: "times"), default: .number(1),
        "Playback speed, 0.5 to 3; a podcast's own speed applies when its episode loads.")
    public static let skipForward = SettingKey(
        "skip-forward", .number(1...600, unit: "seconds"), default: .number(30), "How far `pods forward` skips, in seconds.")
    public static let skipBack = SettingKey(
        "skip-back", .number(1...600, unit: "seconds"), default: .number(10), "How far `pods back` skips, in seconds.")
    public static let skipIntro = SettingKey(
        "skip-intro", .number(0...3600, unit: "seconds"), default: .number(0),
        "Seconds to skip at the start of an episode played from its beginning.")
    public static let skipOutro = SettingKey(
        "skip-outro", .number(0...3600, unit: "seconds"), default: .number(0),
        "Seconds left out at the end of an episode: it ends (and counts as played) that early.")
    public static let smartRewind = SettingKey(
        "smart-rewind", .bool, default: .bool(true),
        "After a pause, play again a little earlier: 3 s after a minute, 10 s after an hour, 20 s after a day, 30 s after a week; never back into a skipped chapter.")
    public static let trimSilence = SettingKey(
        "trim-silence", .bool, default: .bool(false), "Shorten long silences (positions stay in the file's own time).")
    public static let loudness = SettingKey(
        "loudness", .choice(["off", "on"]), default: .text("off"),
        "Level loudness: 'on' brings every show to loudness-target (EBU R 128), the gain moving a few dB a second at most and peaks held under -1 dBTP; downloads are measured whole once.")
    public static let loudnessTarget = SettingKey(
        "loudness-target", .number(-30...(-10), unit: "LUFS"), default: .number(-16),
        "The loudness 'loudness = \"on\"' levels to, LUFS (-16 is what Apple and most podcast hosts ask for; -23 broadcast).")
    public static let preferredFormat = SettingKey(
        "preferred-format", .choice(["feed", "mp3", "aac", "opus", "vorbis", "flac"]), default: .text("feed"),
        "Which audio to play when a feed offers several (podcast:alternateEnclosure): 'feed' its own, or a format, the highest bitrate of it; never one this machine's GStreamer cannot play.")
    public static let nextAction = SettingKey(
        "next-action", .choice(["chapter", "episode"]), default: .text("chapter"),
        "What Next skips to: the next chapter while one remains ('chapter'), or the next episode ('episode').")
    public static let completeWithin = SettingKey(
        "complete-within", .secondsOrPercent(maximumSeconds: 3600), default: .number(0),
        "An episode counts as played once this little is left: seconds, or a share such as \"5%\".")

    // MARK: - Rules (a podcast may have its own)

    public static let skipChapters = SettingKey(
        "skip-chapters", .pattern, default: .text(""),
        "Chapters whose titles match this regular expression (without regard to case), such as \"^(ad|sponsor)\", are played past; Next and Previous step over them.")
    public static let ignoreEpisodes = SettingKey(
        "ignore-episodes", .pattern, default: .text(""),
        "New episodes whose titles match this regular expression are ignored: marked played here, never downloaded, left out of --unplayed, and the sync sends nothing for them.")
    public static let minDuration = SettingKey(
        "min-duration", .interval(maximumSeconds: 86400), default: .number(0),
        "New episodes shorter than this (\"10m\") are ignored as ignore-episodes' are (0: none are).")
    public static let episodeTypes = SettingKey(
        "episode-types", .words(["full", "trailer", "bonus"]), default: .text("full,trailer,bonus"),
        "The kinds of episode (itunes:episodeType) kept; new episodes of the others are ignored as ignore-episodes' are.")
    public static let keepDownloads = SettingKey(
        "keep-downloads", .number(0...10000, unit: "episodes"), default: .number(0),
        "Keep only this many of a podcast's downloads, the newest (0: all); never removes the loaded episode's, a queued one's, or one downloaded by hand.")
    public static let deletePlayedAfter = SettingKey(
        "delete-played-after", .interval(maximumSeconds: 366 * 86400), default: .number(0),
        "Delete a played episode's download this long after it was played (\"2d\"; 0: never); never the loaded episode's, a queued one's, or one downloaded by hand.")

    // MARK: - The player as a whole

    public static let autoNext = SettingKey(
        "auto-next", .bool, default: .bool(true), perPodcast: false,
        "Play the next episode (the queue's head, else the podcast's next) when one ends.")

    public static let refreshInterval = SettingKey(
        "refresh-interval", .interval(maximumSeconds: 7 * 86400), default: .number(3600), perPodcast: false,
        "How often podsd refreshes every feed by itself (\"1h\", \"30m\"; 0: never). A failing feed waits twice as long after each failure, up to a day.")

    public static let audioSink = SettingKey(
        "audio-sink", .text(secret: false), default: .text(""), perPodcast: false,
        "A GStreamer sink such as \"pulsesink\" or \"alsasink device=hw:1\" (empty: the desktop's default); from the next episode that loads.")
    public static let cacheBudget = SettingKey(
        "cache-budget", .size, default: .number(2e9), perPodcast: false,
        "How much partly played episodes may take on disk (\"500M\", \"2G\"); downloads do not count.")

    public static let pauseOnOutputLoss = SettingKey(
        "pause-on-output-loss", .bool, default: .bool(true), perPodcast: false,
        "Pause when the audio output goes away (headphones unplugged, a Bluetooth speaker gone) instead of playing on from another.")

    public static let meteredDownloads = SettingKey(
        "metered-downloads", .choice(["wait", "allow"]), default: .text("wait"), perPodcast: false,
        "On a metered network (a phone's hotspot): downloads 'wait' until it is not, and read-ahead is only what playback needs; 'allow' them.")

    public static let notify = SettingKey(
        "notify", .bool, default: .bool(true), perPodcast: false,
        "A desktop notification when a background refresh finds new episodes, with a Play button.")

    // MARK: - Sync

    public static let sync = SettingKey(
        "sync", .bool, default: .bool(true),
        "Share subscriptions and listening progress with the sync server (`pods sync setup`); false for a podcast keeps it here. Feeds with a password never leave.")
    public static let syncDelay = SettingKey(
        "sync-delay", .interval(maximumSeconds: 3600), default: .number(5), perPodcast: false,
        "How long after playback pauses or stops podsd syncs by itself (0: not then; it still syncs at start and after refreshes).")

    // MARK: - Directory search

    public static let searchITunesURL = SettingKey(
        "search-itunes-url", .url, default: .text("https://itunes.apple.com"), perPodcast: false,
        "Where `pods search` asks the iTunes Search API (no key needed).")
    public static let searchPodcastIndexURL = SettingKey(
        "search-podcastindex-url", .url, default: .text("https://api.podcastindex.org/api/1.0"), perPodcast: false,
        "Where `pods search` asks Podcast Index, when a key and secret are set.")
    public static let podcastIndexKey = SettingKey(
        "podcastindex-key", .text(secret: false), default: .text(""), perPodcast: false,
        "Your Podcast Index API key (free at api.podcastindex.org); empty: iTunes alone.")
    public static let podcastIndexSecret = SettingKey(
        "podcastindex-secret", .text(secret: true), default: .text(""), perPodcast: false, "Your Podcast Index API secret.")

    /// Every key, in the file's order.
    // MARK: - pods ui

    public static let uiArtwork = SettingKey(
        "ui-artwork", .choice(["auto", "kitty", "off"]), default: .text("auto"), perPodcast: false,
        "Artwork in pods ui's details pane: 'auto' where the terminal shows pictures (kitty, WezTerm, Ghostty, Konsole; "
            + "not inside tmux or screen), 'kitty' to send them in the kitty graphics protocol anyway, 'off' never.")

    public static let all: [SettingKey] = [
        speed, skipForward, skipBack, skipIntro, skipOutro, smartRewind, trimSilence, loudness, loudnessTarget, preferredFormat, nextAction, completeWithin,
        skipChapters, ignoreEpisodes, minDuration, episodeTypes, keepDownloads, deletePlayedAfter, autoNext, refreshInterval,
        audioSink, pauseOnOutputLoss, cacheBudget, meteredDownloads, notify, sync, syncDelay, searchITunesURL, searchPodcastIndexURL, podcastIndexKey, podcastIndexSecret,
        uiArtwork,
    ]

    /// The key called `name`.
    public static func named(_ name: String) throws(SettingsError) -> SettingKey {
        guard let key = all.first(where: { $0.name == name }) else {
            throw SettingsError("there is no setting '\(name.prefix(60))'; the settings are " + all.map(\.name).joined(separator: ", "))
        }
        return key
    }
}
