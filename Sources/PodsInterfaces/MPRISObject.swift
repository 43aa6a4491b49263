import PodsConcurrency
import PodsDBus
import PodsLibrary
import PodsPlayback
import PodsPlayer
import PodsProtocol
import PodsSession

/// `/org/mpris/MediaPlayer2`: the `org.mpris.MediaPlayer2` and
/// `org.mpris.MediaPlayer2.Player` interfaces over a `PlayerController`.
package enum MPRISObject {
    /// Properties are read from `publisher`'s snapshot (on the bus thread,
    /// without a hop to the controller); methods and setters go to `controller`.
    package static func make(controller: PlayerController, navigation: Navigation, publisher: MPRISPublisher,
                     trackList: TrackList, playlists: Playlists, session: Session,
                     supportedMimeTypes: [String], window: WindowRaiser,
                     quit: @escaping @Sendable () -> Void) throws(MethodTable.Incomplete) -> DBusExportedObject {
        DBusExportedObject(path: MPRIS.objectPath, interfaces: [
            try root(supportedMimeTypes: supportedMimeTypes, window: window, quit: quit),
            try player(controller, navigation, publisher, session.playback),
            try self.trackList(trackList, controller: controller, session: session),
            try self.playlists(playlists),
        ], executor: callThread)
    }

    /// MPRIS calls (and `org.pods.Player1`'s) run on a thread of their own,
    /// so media keys and applets are answered at once even while a refresh
    /// or a listing keeps every other thread busy.
    package static let callThread = BlockingLane("pods.mpris", width: 1)

    // MARK: - org.mpris.MediaPlayer2

    private static func root(supportedMimeTypes: [String], window: WindowRaiser,
                             quit: @escaping @Sendable () -> Void) throws(MethodTable.Incomplete) -> DBusInterface {
        typealias Property = MPRIS.RootProperty
        let values: [String: DBusValue] = [
            Property.canQuit.name: .bool(true),
            Property.fullscreen.name: .bool(false),
            Property.canSetFullscreen.name: .bool(false),
            Property.canRaise.name: .bool(window.canRaise),
            Property.hasTrackList.name: .bool(true),
            Property.identity.name: .string(MPRIS.identity),
            Property.desktopEntry.name: .string(MPRIS.desktopEntry),
            Property.supportedUriSchemes.name: .stringArray(MediaSource.supportedSchemes + [MPRIS.episodeScheme]),
            Property.supportedMimeTypes.name: .stringArray(supportedMimeTypes),
        ]
        let properties = Property.all.map { property in
            let value = values[property.name] ?? .bool(false)
            guard property.writable else { return DBusProperty(property.name, property.type, get: { value }) }
            return DBusProperty(property.name, property.type, get: { value }, set: { value in  // Fullscreen
                if value.boolValue == true { throw DBusError.notSupported("Pods has no window to make fullscreen") }
            })
        }
        let handlers = [
            MPRISRootMethod.raise.exported { _ in
                try window.raise()
                return []
            },
            MPRISRootMethod.quit.exported { _ in
                quit()
                return []
            },
        ]
        return DBusInterface(
            name: MPRIS.rootInterface,
            methods: try MethodTable.build(handlers, declared: MPRISRootMethod.all, interface: MPRIS.rootInterface),
            properties: properties,
            snapshot: { values })
    }

    // MARK: - org.mpris.MediaPlayer2.Player

    private static func player(_ controller: PlayerController, _ navigation: Navigation, _ publisher: MPRISPublisher,
                               _ libraryPlayer: Playback) throws(MethodTable.Incomplete) -> DBusInterface {
        typealias Property = MPRIS.PlayerProperty
        func stateProperty(_ property: MPRISProperty, set: DBusProperty.Setter? = nil) -> DBusProperty {
            DBusProperty(property.name, property.type, get: { publisher.playerProperties()[property.name] ?? .bool(false) }, set: set)
        }
        func action(_ method: MPRISPlayerMethod, _ body: @escaping @Sendable () async throws -> Void) -> DBusMethod {
            method.exported { _ in
                try await body()
                return []
            }
        }
        let handlers = [
            action(.next) { try await navigation.next(whenAnnounced: DBusCall.letLaterCallsStart) },
            action(.previous) { try await navigation.previous(whenAnnounced: DBusCall.letLaterCallsStart) },
            action(.pause) { await controller.pause() },
            action(.playPause) { try await controller.playPause() },
            action(.stop) { await controller.stop() },
            action(.play) { await controller.play() },
            MPRISPlayerMethod.seek.exported { arguments in
                await controller.seek(by: .microseconds(arguments[0].int64Value ?? 0))
                return []
            },
            MPRISPlayerMethod.setPosition.exported { arguments in
                // A path no track has (NoTrack, a stale one) is ignored, as the spec asks.
                guard let path = arguments[0].objectPathValue, let trackID = TrackID(objectPath: path),
                      let position = arguments[1].int64Value else { return [] }
                await controller.setPosition(trackID: trackID, .microseconds(position))
                return []
            },
            MPRISPlayerMethod.openUri.exported { arguments in
                let uri = arguments[0].stringValue ?? ""
                if let episode = MPRIS.episodeID(inURI: uri) {
                    // A library episode, as org.pods.Library2's PlayEpisode plays it (from where the
                    // listener stopped, at its podcast's speed): on this name, so a client's later
                    // calls here (a Pause) keep their order after it, which no call to another name can.
                    let announced = await controller.announceLoad()
                    DBusCall.letLaterCallsStart()
                    do throws(SessionError) { try await libraryPlayer.play(episodeID: episode, announced: announced) } catch {
                        await controller.withdrawLoad(announced)
                        throw DBusError(error)
                    }
                    return []
                }
                let source: MediaSource
                do throws(PlaybackError) {
                    source = try MediaSource(uri: uri)
                } catch {
                    throw DBusError.notSupported(error.message)
                }
                // A stream can take seconds to start: its place is taken first, and the caller's later calls go ahead.
                let announced = await controller.announceLoad()
                DBusCall.letLaterCallsStart()
                do throws(PlaybackError) {
                    try await controller.open(source, announced: announced)
                } catch {
                    await controller.withdrawLoad(announced)
                    throw DBusError.failed("Could not play \(source.uri): \(error.message)")
                }
                return []
            },
        ]
        return DBusInterface(
            name: MPRIS.playerInterface,
            methods: try MethodTable.build(handlers, declared: MPRISPlayerMethod.all, interface: MPRIS.playerInterface),
            // One row per declared property, in the declaration's order: a property declared in
            // PodsProtocol is exported, read from the snapshot and signalled by the same name.
            properties: Property.all.map { property in
                switch property.name {
                case Property.position.name:
                    DBusProperty(property.name, property.type, changeSignal: .none, get: {
                        publisher.playerProperty(named: property.name) ?? .int64(0)
                    })
                case Property.canControl.name:
                    DBusProperty(property.name, property.type, changeSignal: .none, get: { .bool(true) })
                case Property.rate.name:
                    stateProperty(property, set: { value in try await controller.setRate(value.doubleValue ?? .nan) })
                case Property.volume.name:
                    stateProperty(property, set: { value in try await controller.setVolume(value.doubleValue ?? .nan) })
                default:
                    stateProperty(property)
                }
            },
            signals: [MPRIS.seeked],
            snapshot: { publisher.playerProperties() },
            snapshotValue: { publisher.playerProperty(named: $0) })
    }
}
