import PodsClient
import PodsDBus
import PodsPlayback

/// The values of MPRIS properties that announce their changes, computed
/// from one `PlayerState`, so what `Get` answers and what
/// `PropertiesChanged` carries come from the same code.
enum MPRISProperties {
    /// `org.mpris.MediaPlayer2.Player`'s properties, except `Position`
    /// (never signalled) and `CanControl` (constant).
    static func player(_ state: PlayerState) -> [String: DBusValue] {
        let hasTrack = state.track != nil
        return [
            "PlaybackStatus": .string(state.status.rawValue),
            "Rate": .double(state.rate),
            "Volume": .double(state.volume),
            "Metadata": metadata(state.track),
            "MinimumRate": .double(PlaybackEngine.rateRange.lowerBound),
            "MaximumRate": .double(PlaybackEngine.rateRange.upperBound),
            "CanGoNext": .bool(false),
            "CanGoPrevious": .bool(false),
            "CanPlay": .bool(hasTrack),
            "CanPause": .bool(hasTrack),
            "CanSeek": .bool(hasTrack && state.canSeek),
        ]
    }

    /// `Metadata`: empty when nothing is loaded; otherwise it always has an
    /// `o` trackid and `x` length in microseconds.
    static func metadata(_ track: TrackInfo?) -> DBusValue {
        guard let track else { return .variantDictionary([:]) }
        var entries: [String: DBusValue] = [
            "mpris:trackid": .objectPath(track.trackID),
            "xesam:title": .string(track.title),
            "xesam:url": .string(track.source.uri),
        ]
        if let duration = track.duration { entries["mpris:length"] = .int64(duration.microsecondsSaturating) }
        if let artist = track.episode?.author ?? track.tags.artist { entries["xesam:artist"] = .stringArray([artist]) }
        if let album = track.episode?.podcastTitle ?? track.tags.album { entries["xesam:album"] = .string(album) }
        if let art = track.episode?.artworkURL { entries["mpris:artUrl"] = .string(art) }
        if let episode = track.episode {  // Pods' own keys, in its own namespace
            entries["pods:episodeId"] = .int64(episode.episodeID)
            entries["pods:podcastId"] = .int64(episode.podcastID)
        }
        return .variantDictionary(entries)
    }
}
