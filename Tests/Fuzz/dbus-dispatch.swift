// libFuzzer harness: a method call from any client on the bus, routed as
// podsd routes it (DBusDispatch: object path, interface and member, the
// signature checked against the method's, property access with Get, Set and
// GetAll, Peer, Introspect) to objects exported with Pods' own interface
// declarations (PodsProtocol: MPRIS root and Player, TrackList, Playlists,
// org.pods.Player1, org.pods.Library2), and the answer marshalled into a
// reply as the router sends it. Handlers do nothing here: what they read of
// their arguments is the `dbus` harness's. Built by scripts/fuzz with the
// PodsDBus and PodsProtocol sources and libdbus.
internal import CDBus
import Foundation

private func interface<Method>(_ name: String, _ methods: [InterfaceMethod<Method>],
                               properties: [DBusProperty] = [], snapshot: Bool = false) -> DBusInterface {
    let exported = methods.map { $0.exported { _ in [] } }
    let values = Dictionary(uniqueKeysWithValues: properties.map { ($0.name, DBusValue.string($0.name)) })
    var made = DBusInterface(name: name, methods: exported, properties: properties)
    if snapshot {
        let all: @Sendable () -> [String: DBusValue] = { values }
        let one: @Sendable (String) -> DBusValue? = { values[$0] }
        made.snapshot = all
        made.snapshotValue = one
    }
    return made
}

private let ignoreValue: DBusProperty.Setter = { _ in }

private func property(_ declared: MPRISProperty) -> DBusProperty {
    let name = declared.name
    return DBusProperty(name, declared.type, get: { .string(name) }, set: declared.writable ? ignoreValue : nil)
}

private func plain(_ name: String, _ type: DBusType, writable: Bool = false) -> DBusProperty {
    DBusProperty(name, type, get: { .bool(false) }, set: writable ? ignoreValue : nil)
}

/// What podsd exports, by the declarations it exports them with.
private let objects: [DBusObjectPath: DBusExportedObject] = {
    typealias P = MPRIS.PlayerProperty
    let player = P.all
    let root = DBusInterface(name: MPRIS.rootInterface, methods: [DBusMethod("Raise") { _ in [] }, DBusMethod("Quit") { _ in [] }],
                             properties: [plain("CanQuit", .bool), plain("Fullscreen", .bool, writable: true), plain("Identity", .string),
                                          plain("SupportedUriSchemes", .array(.string)), plain("HasTrackList", .bool)])
    let trackList = DBusInterface(name: MPRIS.trackListInterface, methods: [
        DBusMethod("GetTracksMetadata", inputs: [DBusArgument("TrackIds", .array(.objectPath))],
                   outputs: [DBusArgument("Metadata", .array(.dictionary(key: .string, value: .variant)))]) { _ in [] },
        DBusMethod("AddTrack", inputs: [DBusArgument("Uri", .string), DBusArgument("AfterTrack", .objectPath),
                                        DBusArgument("SetAsCurrent", .bool)]) { _ in [] },
        DBusMethod("RemoveTrack", inputs: [DBusArgument("TrackId", .objectPath)]) { _ in [] },
        DBusMethod("GoTo", inputs: [DBusArgument("TrackId", .objectPath)]) { _ in [] },
    ], properties: [plain("Tracks", .array(.objectPath)), plain("CanEditTracks", .bool)])
    let playlists = DBusInterface(name: MPRIS.playlistsInterface, methods: [
        DBusMethod("ActivatePlaylist", inputs: [DBusArgument("PlaylistId", .objectPath)]) { _ in [] },
        DBusMethod("GetPlaylists", inputs: [DBusArgument("Index", .uint32), DBusArgument("MaxCount", .uint32),
                                            DBusArgument("Order", .string), DBusArgument("ReverseOrder", .bool)]) { _ in [] },
    ], properties: [plain("PlaylistCount", .uint32), plain("Orderings", .array(.string))])
    let mpris = DBusExportedObject(path: MPRIS.objectPath, interfaces: [
        root, interface(MPRIS.playerInterface, MPRISPlayerMethod.all, properties: player.map(property), snapshot: true),
        trackList, playlists,
    ])
    let pods = DBusExportedObject(path: PlayerNames.objectPath, interfaces: [interface(PlayerNames.interface, PlayerMethod.all)])
    let library = DBusExportedObject(path: LibraryNames.objectPath, interfaces: [
        interface(LibraryNames.interface, LibraryMethod.all, properties: [plain("Version", .uint32)]),
    ])
    return [mpris.path: mpris, pods.path: pods, library.path: library]
}()

/// Builds the objects before the first input: their declarations are
/// lazily made statics, whose first making LeakSanitizer would take for a
/// leak of that input (it cannot see pointers kept in enum payloads' spare bits).
@_cdecl("LLVMFuzzerInitialize")
public func fuzzDBusDispatchInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>>>) -> CInt {
    for (path, object) in objects {
        _ = DBusIntrospection.xml(interfaces: object.interfaces, children: [path.rawValue])
    }
    return 0
}

public func fuzzDBusDispatch(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 16, size <= 1 << 20,
          let message = try? DBusMessage.demarshal(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    guard message.type == DBUS_MESSAGE_TYPE_METHOD_CALL else { return 0 }
    // As the router: with the sender's queue empty (a snapshot may answer) and not.
    for queueEmpty in [true, false] {
        switch DBusDispatch.route(message, objects: objects, mayAnswerNow: { _ in queueEmpty }) {
        case .answer(.success(let values)):
            if let reply = message.methodReturn() { _ = try? reply.append(values) }
        case .answer(.failure(let failure)):
            _ = message.errorReply(failure)
        case .call(let call):
            precondition(objects[call.path] != nil, "routed to an object podsd does not export")
        }
    }
    return 0
}
