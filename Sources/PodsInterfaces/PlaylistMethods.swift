import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsSession

/// `org.pods.Library2`'s playlist methods (MPRIS `Playlists` shows and plays them too).
enum PlaylistMethods {
    static func make(_ playlists: PlaylistService) -> [DBusMethod] {
        [
            LibraryMethod.listPlaylists.handler { arguments throws(DBusError) in
                let active = try await onBus { () throws(SessionError) in try await playlists.active() }
                let all = try await onBus { () throws(SessionError) in try await playlists.list() }
                return try await LibraryReplies.offsetPaged(arguments, of: .listPlaylists, item: { playlist in
                    LibraryItemEncoding.playlist(playlist, active: playlist.id == active).value
                }) { offset, limit throws(DBusError) in Array(all.dropFirst(offset).prefix(limit)) }
            },
            LibraryMethod.createPlaylist.handler { arguments throws(DBusError) in
                let rules = try Self.rules(arguments[1])
                let made = try await onBus { () throws(SessionError) in try await playlists.create(arguments[0].stringValue ?? "", rules: rules) }
                return [LibraryItemEncoding.playlist(made, active: false).value]
            },
            LibraryMethod.deletePlaylist.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in try await playlists.delete(arguments[0].stringValue ?? "") }
                return []
            },
            LibraryMethod.listPlaylistEpisodes.handler { arguments throws(DBusError) in
                let name = arguments[0].stringValue ?? ""
                return try await LibraryReplies.offsetPaged(Array(arguments.dropFirst()), of: .listPlaylistEpisodes,
                                                            item: { LibraryItemEncoding.summary($0).value }) { offset, limit throws(DBusError) in
                    try await onBus { () throws(SessionError) in try await playlists.episodes(name, offset: offset, limit: limit) }
                }
            },
            LibraryMethod.playlistAdd.handler { arguments throws(DBusError) in
                let ids = arguments[1].arrayValue?.compactMap(\.int64Value) ?? []
                guard ids.count <= LibraryPaging.maxItems else { throw DBusError.invalidArgs("at most \(LibraryPaging.maxItems) episodes at once") }
                let index = arguments[2].int64Value.flatMap { $0 >= 0 ? Int($0) : nil }
                try await onBus { () throws(SessionError) in try await playlists.add(arguments[0].stringValue ?? "", episodes: ids, at: index) }
                return []
            },
            LibraryMethod.playlistRemove.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in
                    try await playlists.remove(arguments[0].stringValue ?? "", episode: arguments[1].int64Value ?? -1)
                }
                return []
            },
            LibraryMethod.playPlaylist.handler { arguments throws(DBusError) in
                try await onBus { () throws(SessionError) in try await playlists.play(arguments[0].stringValue ?? "") }
                return []
            },
        ]
    }

    /// `CreatePlaylist`'s rules: nil for `manual`; a key Pods does not know, or a value of the wrong type, is refused.
    static func rules(_ value: DBusValue) throws(DBusError) -> PlaylistRules? {
        let given = value.stringKeyedDictionary ?? [:]
        let known = Set(LibraryItems.playlistRules.fields.map(\.name) + ["manual"])
        if let unknown = given.keys.sorted().first(where: { !known.contains($0) }) {
            throw DBusError.invalidArgs("a playlist's rules are " + known.sorted().joined(separator: ", ") + "; not '\(unknown.prefix(40))'")
        }
        func wrong(_ key: String) -> DBusError { DBusError.invalidArgs("the rule \(key) has the wrong type") }
        if let manual = given["manual"] {
            guard let flag = manual.boolValue else { throw wrong("manual") }
            if flag {
                guard given.count == 1 else { throw DBusError.invalidArgs("a list kept by hand has no rules") }
                return nil
            }
        }
        var rules = PlaylistRules()
        if let podcasts = given["podcasts"] {
            guard let ids = podcasts.arrayValue?.compactMap(\.int64Value), ids.count == podcasts.arrayValue?.count else { throw wrong("podcasts") }
            rules.podcasts = ids
        }
        for (key, path) in [("unplayed", \PlaylistRules.unplayed), ("downloaded", \PlaylistRules.downloaded)] {
            if let flag = given[key] {
                guard let flag = flag.boolValue else { throw wrong(key) }
                rules[keyPath: path] = flag
            }
        }
        for (key, path) in [("minDuration", \PlaylistRules.minDuration), ("maxDuration", \PlaylistRules.maxDuration),
                            ("maxAge", \PlaylistRules.maxAge)] {
            if let number = given[key] {
                guard let seconds = number.doubleValue else { throw wrong(key) }
                rules[keyPath: path] = seconds
            }
        }
        if let title = given["title"] {
            guard let text = title.stringValue else { throw wrong("title") }
            rules.title = text.isEmpty ? nil : text
        }
        if let order = given["order"] {
            guard let word = order.stringValue, let parsed = PlaylistRules.Order(rawValue: word) else {
                throw DBusError.invalidArgs("a playlist's order is " + PlaylistRules.Order.allCases.map(\.rawValue).joined(separator: ", "))
            }
            rules.order = parsed
        }
        return rules
    }
}
