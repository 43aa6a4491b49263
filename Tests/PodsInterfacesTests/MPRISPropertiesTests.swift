import PodsDBus
@testable import PodsInterfaces
import PodsPlayback
@testable import PodsPlayer
import PodsProtocol
import Testing

/// What `PropertiesChanged` carries for `org.mpris.MediaPlayer2.Player` is
/// `MPRISProperties.player`: it must name exactly the properties the
/// protocol says are signalled, each with the type introspection declares,
/// or an applet would read a value of one type from `Get` and another
/// from a signal.
@Suite struct MPRISPropertiesTests {
    private static let states: [PlayerState] = {
        var empty = PlayerState()
        empty.status = .stopped
        var playing = PlayerState()
        playing.status = .playing
        playing.canSeek = true
        playing.track = TrackInfo(trackID: .episode(7), source: MediaSource(filePath: "/tmp/one.ogg"), tags: MediaTags(title: "Tag"),
                                  duration: .seconds(90),
                                  episode: EpisodeMetadata(episodeID: 7, podcastID: 2, title: "One", podcastTitle: "Show",
                                                           author: nil, artworkURL: "https://example.com/a.png"))
        return [empty, playing]
    }()

    @Test(arguments: states) func theKeysAreExactlyTheSignalledOnes(state: PlayerState) {
        let properties = MPRISProperties.player(state)
        #expect(Set(properties.keys) == Set(MPRIS.PlayerProperty.signalled.map(\.name)))
    }

    @Test(arguments: states) func eachValueHasItsDeclaredType(state: PlayerState) {
        let properties = MPRISProperties.player(state)
        for property in MPRIS.PlayerProperty.signalled {
            #expect(properties[property.name]?.type == property.type, "\(property.name)")
        }
    }

    @Test func neitherPositionNorCanControlIsSignalled() {
        let signalled = Set(MPRIS.PlayerProperty.signalled.map(\.name))
        #expect(!signalled.contains(MPRIS.PlayerProperty.position.name))
        #expect(!signalled.contains(MPRIS.PlayerProperty.canControl.name))
        #expect(signalled.count == MPRIS.PlayerProperty.all.count - 2)
    }
}
