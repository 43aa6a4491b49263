import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsSession

// MARK: - org.mpris.MediaPlayer2.Playlists

extension MPRISObject {
    package static func playlists(_ playlists: Playlists) -> DBusInterface {
        let playlist = DBusType.structure([.objectPath, .string, .string])
        let orderings = DBusValue.stringArray(PodcastOrder.allCases.map(\.rawValue))
        return DBusInterface(
            name: MPRIS.playlistsInterface,
            methods: [
                DBusMethod("ActivatePlaylist", inputs: [DBusArgument("PlaylistId", .objectPath)]) { arguments in
                    try await playlists.activate(arguments[0].objectPathValue ?? DBusObjectPath(validLiteral: "/"))
                    return []
                },
                DBusMethod("GetPlaylists", inputs: [
                    DBusArgument("Index", .uint32), DBusArgument("MaxCount", .uint32), DBusArgument("Order", .string),
                    DBusArgument("ReverseOrder", .bool),
                ], outputs: [DBusArgument("Playlists", .array(playlist))]) { arguments in
                    let name = arguments[2].stringValue ?? ""
                    guard let order = PodcastOrder(rawValue: name) else {
                        throw DBusError.invalidArgs("Pods orders playlists " + PodcastOrder.allCases.map(\.rawValue).joined(separator: ", ")
                                                    + "; not '\(name.prefix(40))'")
                    }
                    let entries = try await playlists.playlists(
                        from: Int(arguments[0].int64Value ?? 0), count: Int(arguments[1].int64Value ?? 0), order: order,
                        reversed: arguments[3].boolValue ?? false)
                    return [ReplyPage.bounded(entries, item: \.value).list(of: playlist)]
                },
            ],
            properties: [
                DBusProperty("PlaylistCount", .uint32, get: { .uint32(playlists.count) }),
                DBusProperty("Orderings", .array(.string), get: { orderings }),
                DBusProperty("ActivePlaylist", .structure([.bool, playlist]), get: { playlists.active }),
            ],
            signals: [DBusSignalDescription("PlaylistChanged", arguments: [DBusArgument("Playlist", playlist)])],
            snapshot: { ["PlaylistCount": .uint32(playlists.count), "Orderings": orderings, "ActivePlaylist": playlists.active] })
    }
}
