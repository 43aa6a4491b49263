import PodsDBus
import PodsPlayback
import PodsPlayer
import PodsProtocol
import PodsSession

/// The values of MPRIS properties that announce their changes, computed
/// from one `PlayerState`, so what `Get` answers and what
/// `PropertiesChanged` carries come from the same code.
package enum MPRISProperties {
    /// `org.mpris.MediaPlayer2.Player`'s properties, except `Position`
    /// (never signalled) and `CanControl` (constant).
    package static func player(_ state: PlayerState) -> [String: DBusValue] {
        let hasTrack = state.track != nil
        typealias Property = MPRIS.PlayerProperty
        return [
            Property.playbackStatus.name: .string(playbackStatus(state.status).rawValue),
            Property.rate.name: .double(state.rate),
            Property.volume.name: .double(state.volume),
            Property.metadata.name: metadata(state.track, chapter: state.chapter, chapterImage: state.chapterImage, cue: state.cue),
            Property.minimumRate.name: .double(PlaybackEngine.rateRange.lowerBound),
            Property.maximumRate.name: .double(PlaybackEngine.rateRange.upperBound),
            Property.canGoNext.name: .bool(state.canGoNext),
            Property.canGoPrevious.name: .bool(state.canGoPrevious),
            Property.canPlay.name: .bool(hasTrack),
            Property.canPause.name: .bool(hasTrack),
            Property.canSeek.name: .bool(hasTrack && state.canSeek),
        ]
    }

    /// The player's status as MPRIS spells it.
    package static func playbackStatus(_ status: PlaybackStatus) -> MPRIS.PlaybackStatus {
        switch status {
        case .playing: .playing
        case .paused: .paused
        case .stopped: .stopped
        }
    }

    /// `Metadata`: empty when nothing is loaded; otherwise it always has an
    /// `o` trackid and `x` length in microseconds. `xesam:artist` is the
    /// episode's author, else the podcast's title, and `xesam:album` the
    /// podcast: the podcast is named where every desktop looks.
    ///
    /// While a chapter plays, the episode reads as an album and the chapter
    /// as its track: `xesam:title` is the chapter's title (the line every
    /// applet shows largest), `xesam:album` the episode's, `xesam:trackNumber`
    /// the chapter's number, and `mpris:artUrl` the chapter's image when it
    /// has one. The trackid stays the episode's, so `SetPosition` and the
    /// applets' idea of "the same track" hold across chapters.
    ///
    /// While a timed transcript plays, `xesam:asText` has its lines around
    /// the one playing as LRC, and `pods:cue` that line (`pods:cueIndex` its
    /// number): they change as each line is reached, at most twice a second,
    /// never while paused.
    package static func metadata(_ track: TrackInfo?, chapter: PlayingChapter? = nil, chapterImage: String? = nil,
                                 cue: PlayingCue? = nil) -> DBusValue {
        guard let track else { return .variantDictionary([:]) }
        var entries: [String: DBusValue] = [
            MPRIS.Metadata.trackID: .objectPath(track.trackID.objectPath),
            MPRIS.Metadata.title: .string(track.title),
            MPRIS.Metadata.url: .string(track.source.uri),
        ]
        if let duration = track.duration { entries[MPRIS.Metadata.length] = .int64(duration.microsecondsSaturating) }
        // The line under the title: the episode's author, else the podcast's name (GNOME Shell
        // shows "Unknown artist" for none, and its media message has no album line).
        if let artist = [track.episode?.author, track.episode?.podcastTitle, track.tags.artist].lazy.compactMap({ $0 }).first(where: { !$0.isEmpty }) {
            entries[MPRIS.Metadata.artist] = .stringArray([artist])
        }
        if let album = track.episode?.podcastTitle ?? track.tags.album { entries[MPRIS.Metadata.album] = .string(album) }
        if let art = chapterImage ?? track.episode?.artworkURL { entries[MPRIS.Metadata.artURL] = .string(art) }
        // The podcast as the album's artist too: applets and bar scripts that read it find the podcast.
        if let podcast = track.episode?.podcastTitle, !podcast.isEmpty { entries[MPRIS.Metadata.albumArtist] = .stringArray([podcast]) }
        if let episode = track.episode {  // Pods' own keys, in its own namespace
            entries[MPRIS.Metadata.episodeID] = .int64(episode.episodeID)
            entries[MPRIS.Metadata.podcastID] = .int64(episode.podcastID)
        }
        if let chapter, !chapter.title.isEmpty {
            entries[MPRIS.Metadata.title] = .string(chapter.title)
            entries[MPRIS.Metadata.album] = .string(track.title)
            entries[MPRIS.Metadata.trackNumber] = .int32(Int32(clamping: chapter.index))
            entries[MPRIS.Metadata.episodeTitle] = .string(track.title)
            entries[MPRIS.Metadata.chapter] = .int32(Int32(clamping: chapter.index))
        }
        if let cue {
            entries[MPRIS.Metadata.text] = .string(cue.lyrics)
            entries[MPRIS.Metadata.cue] = .string(cue.text)
            entries[MPRIS.Metadata.cueIndex] = .int32(Int32(clamping: cue.index))
            entries[MPRIS.Metadata.cueStart] = .double(cue.start)
        }
        return .variantDictionary(entries)
    }
}
