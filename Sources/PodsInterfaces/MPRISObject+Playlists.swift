import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsSession

// MARK: - org.mpris.MediaPlayer2.Playlists

extension MPRISObject {
    package static func playlists(_ playlists: Playlists) throws(MethodTable.Incomplete) -> DBusInterface {
        typealias Property = MPRIS.PlaylistsProperty
        let orderings = DBusValue.stringArray(PodcastOrder.allCases.map(\.rawValue))
        let handlers = [
            MPRISPlaylistsMethod.activatePlaylist.exported { arguments in
                try await playlists.activate(arguments[0].objectPathValue ?? DBusObjectPath(validLiteral: "/"))
                return []
            },
            MPRISPlaylistsMethod.getPlaylists.exported { arguments in
                let name = arguments[2].stringValue ?? ""
                guard let order = PodcastOrder(rawValue: name) else {
                    throw DBusError.invalidArgs("Pods orders playlists " + PodcastOrder.allCases.map(\.rawValue).joined(separator: ", ")
                                                + "; not '\(name.prefix(40))'")
                }
                let entries = try await playlists.playlists(
                    from: Int(arguments[0].int64Value ?? 0), count: Int(arguments[1].int64Value ?? 0), order: order,
                    reversed: arguments[3].boolValue ?? false)
                return [ReplyPage.bounded(entries, item: \.value).list(of: MPRIS.playlistType)]
            },
        ]
        let snapshot: @Sendable () -> [String: DBusValue] = {
            [Property.playlistCount.name: .uint32(playlists.count), Property.orderings.name: orderings,
             Property.activePlaylist.name: playlists.active]
        }
        return DBusInterface(
            name: MPRIS.playlistsInterface,
            methods: try MethodTable.build(handlers, declared: MPRISPlaylistsMethod.all, interface: MPRIS.playlistsInterface),
            properties: Property.all.map { property in
                DBusProperty(property.name, property.type, get: { snapshot()[property.name] ?? .bool(false) })
            },
            signals: [MPRIS.playlistChanged],
            snapshot: snapshot)
    }
}
