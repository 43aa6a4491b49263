import PodsClient
import PodsConcurrency
import PodsDBus
import PodsPlayback

/// `/org/mpris/MediaPlayer2`: the `org.mpris.MediaPlayer2` and
/// `org.mpris.MediaPlayer2.Player` interfaces over a `PlayerController`.
enum MPRISObject {
    static func make(controller: PlayerController, supportedMimeTypes: [String],
                     quit: @escaping @Sendable () -> Void) -> DBusExportedObject {
        DBusExportedObject(path: MPRIS.objectPath, interfaces: [
            root(supportedMimeTypes: supportedMimeTypes, quit: quit),
            player(controller),
        ], executor: callThread)
    }

    /// MPRIS calls run on a thread of their own, so media keys and applets
    /// are answered at once even while a refresh or a listing keeps every
    /// other thread busy.
    private static let callThread = BlockingLane("pods.mpris", width: 1)

    // MARK: - org.mpris.MediaPlayer2

    private static func root(supportedMimeTypes: [String], quit: @escaping @Sendable () -> Void) -> DBusInterface {
        func constant(_ name: String, _ value: DBusValue) -> DBusProperty {
            DBusProperty(name, value.type, get: { value })
        }
        return DBusInterface(
            name: MPRIS.rootInterface,
            methods: [
                DBusMethod("Raise") { _ in [] },  // no window to raise: CanRaise is false
                DBusMethod("Quit") { _ in
                    quit()
                    return []
                },
            ],
            properties: [
                constant("CanQuit", .bool(true)),
                constant("CanRaise", .bool(false)),
                constant("CanSetFullscreen", .bool(false)),
                DBusProperty("Fullscreen", .bool, get: { .bool(false) }, set: { value in
                    if value.boolValue == true { throw DBusError.notSupported("Pods has no window to make fullscreen") }
                }),
                constant("HasTrackList", .bool(false)),
                constant("Identity", .string(MPRIS.identity)),
                constant("DesktopEntry", .string(MPRIS.desktopEntry)),
                constant("SupportedUriSchemes", .stringArray(MediaSource.supportedSchemes)),
                constant("SupportedMimeTypes", .stringArray(supportedMimeTypes)),
            ])
    }

    // MARK: - org.mpris.MediaPlayer2.Player

    private static func player(_ controller: PlayerController) -> DBusInterface {
        func stateProperty(_ name: String, _ type: DBusType, set: DBusProperty.Setter? = nil) -> DBusProperty {
            DBusProperty(name, type, get: {
                MPRISProperties.player(await controller.currentState())[name] ?? .bool(false)
            }, set: set)
        }
        func action(_ name: String, _ body: @escaping @Sendable () async throws -> Void) -> DBusMethod {
            DBusMethod(name) { _ in
                try await body()
                return []
            }
        }
        return DBusInterface(
            name: MPRIS.playerInterface,
            methods: [
                action("Next") {},  // no queue yet: CanGoNext is false
                action("Previous") {},
                action("Pause") { await controller.pause() },
                action("PlayPause") { try await controller.playPause() },
                action("Stop") { await controller.stop() },
                action("Play") { await controller.play() },
                DBusMethod("Seek", inputs: [DBusArgument("Offset", .int64)]) { arguments in
                    await controller.seek(by: .microseconds(arguments[0].int64Value ?? 0))
                    return []
                },
                DBusMethod("SetPosition", inputs: [DBusArgument("TrackId", .objectPath), DBusArgument("Position", .int64)]) { arguments in
                    guard let trackID = arguments[0].objectPathValue, let position = arguments[1].int64Value else { return [] }
                    await controller.setPosition(trackID: trackID, .microseconds(position))
                    return []
                },
                DBusMethod("OpenUri", inputs: [DBusArgument("Uri", .string)]) { arguments in
                    let source: MediaSource
                    do throws(PlaybackError) {
                        source = try MediaSource(uri: arguments[0].stringValue ?? "")
                    } catch {
                        throw DBusError.notSupported(error.message)
                    }
                    do throws(PlaybackError) {
                        try await controller.open(source)
                    } catch {
                        throw DBusError.failed("Could not play \(source.uri): \(error.message)")
                    }
                    return []
                },
            ],
            properties: [
                stateProperty("PlaybackStatus", .string),
                stateProperty("Rate", .double, set: { value in try await controller.setRate(value.doubleValue ?? .nan) }),
                stateProperty("Metadata", .dictionary(key: .string, value: .variant)),
                stateProperty("Volume", .double, set: { value in try await controller.setVolume(value.doubleValue ?? .nan) }),
                DBusProperty("Position", .int64, changeSignal: .none, get: {
                    .int64(await controller.position().microsecondsSaturating)
                }),
                stateProperty("MinimumRate", .double),
                stateProperty("MaximumRate", .double),
                stateProperty("CanGoNext", .bool),
                stateProperty("CanGoPrevious", .bool),
                stateProperty("CanPlay", .bool),
                stateProperty("CanPause", .bool),
                stateProperty("CanSeek", .bool),
                DBusProperty("CanControl", .bool, changeSignal: .none, get: { .bool(true) }),
            ],
            signals: [DBusSignalDescription("Seeked", arguments: [DBusArgument("Position", .int64)])])
    }
}
