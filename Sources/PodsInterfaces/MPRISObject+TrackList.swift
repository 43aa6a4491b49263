import PodsDBus
import PodsLibrary
import PodsPlayback
import PodsPlayer
import PodsProtocol
import PodsSession

// MARK: - org.mpris.MediaPlayer2.TrackList

extension MPRISObject {
    package static func trackList(_ list: TrackList, controller: PlayerController, session: Session) throws(MethodTable.Incomplete) -> DBusInterface {
        let player = session.playback
        typealias Property = MPRIS.TrackListProperty
        let handlers = [
            MPRISTrackListMethod.getTracksMetadata.exported { arguments in
                let ids = arguments[0].arrayValue?.compactMap(\.objectPathValue) ?? []
                return [.array(MPRIS.metadataType, await list.metadata(for: ids))]
            },
            MPRISTrackListMethod.addTrack.exported { arguments in
                try await addTrack(uri: arguments[0].stringValue ?? "", after: arguments[1].objectPathValue ?? MPRIS.noTrack,
                                   setAsCurrent: arguments[2].boolValue ?? false, list: list, controller: controller,
                                   session: session)
                return []
            },
            MPRISTrackListMethod.removeTrack.exported { arguments in
                guard let path = arguments[0].objectPathValue, path != MPRIS.noTrack else {
                    throw DBusError.invalidArgs("RemoveTrack takes a track id, not NoTrack")
                }
                // The playing track stays (Stop or Next move on from it); an unknown id changes nothing.
                let playing = await controller.currentState().track?.trackID.objectPath
                guard path != playing, list.snapshot.contains(path),
                      let id = MPRIS.id(in: path, under: MPRIS.episodePathPrefix) else { return [] }
                try await onBus { () throws(SessionError) in try await session.edits.dequeue(id) }
                return []
            },
            MPRISTrackListMethod.goTo.exported { arguments in
                guard let path = arguments[0].objectPathValue, list.snapshot.contains(path) else {
                    throw DBusError.invalidArgs("\(arguments[0].objectPathValue?.rawValue ?? "that") is not in the track list")
                }
                if path == (await controller.currentState()).track?.trackID.objectPath { return [] }
                guard let id = MPRIS.id(in: path, under: MPRIS.episodePathPrefix) else { return [] }
                try await player.play(episodeID: id)
                return []
            },
        ]
        let snapshot: @Sendable () -> [String: DBusValue] = {
            [Property.tracks.name: .array(.objectPath, list.snapshot.map(DBusValue.objectPath)), Property.canEditTracks.name: .bool(true)]
        }
        return DBusInterface(
            name: MPRIS.trackListInterface,
            methods: try MethodTable.build(handlers, declared: MPRISTrackListMethod.all, interface: MPRIS.trackListInterface),
            properties: Property.all.map { property in
                DBusProperty(property.name, property.type, changeSignal: property.name == Property.tracks.name ? .invalidates : .emitsValue,
                             get: { snapshot()[property.name] ?? .bool(false) })
            },
            signals: MPRIS.TrackListSignal.all,
            snapshot: snapshot)
    }

    /// `AddTrack`: a library episode (`pods:episode/<id>`, or its audio's
    /// URL) joins the queue after `after` (at its head for NoTrack or the
    /// playing track); with `setAsCurrent` it plays now. Any other playable
    /// URI plays now; the queue holds library episodes only.
    private static func addTrack(uri: String, after: DBusObjectPath, setAsCurrent: Bool, list: TrackList,
                                 controller: PlayerController, session: Session) async throws {
        let library = session.library
        let episodeID: Int64?
        if uri.hasPrefix(MPRIS.episodeScheme + ":episode/") {
            guard let id = MPRIS.episodeID(inURI: uri) else { throw DBusError.invalidArgs("'\(uri.prefix(80))' names no episode") }
            _ = try await LibraryCall.run { () throws(LibraryError) in try library.episode(id) }
            episodeID = id
        } else {
            episodeID = try await LibraryCall.run { () throws(LibraryError) in try library.episodeID(enclosureURL: uri) }
        }
        guard let episodeID else {
            let source: MediaSource
            do throws(PlaybackError) { source = try MediaSource(uri: uri) } catch { throw DBusError.invalidArgs(error.message) }
            guard setAsCurrent else {
                throw DBusError.notSupported("Pods queues library episodes; '\(uri.prefix(80))' is none (SetAsCurrent plays it now)")
            }
            do throws(PlaybackError) { try await controller.open(source) } catch {
                throw DBusError.failed("Could not play \(uri.prefix(200)): \(error.message)")
            }
            return
        }
        if setAsCurrent {
            try await session.playback.play(episodeID: episodeID)
        } else {
            let playing = await controller.currentState().track?.trackID.objectPath
            let queued = list.snapshot.filter { $0 != playing }
            let queueIndex: Int? = if after == MPRIS.noTrack || after == playing {
                0
            } else if let position = queued.firstIndex(of: after) {
                position + 1
            } else {
                nil  // an unknown AfterTrack: the end, as VLC does
            }
            try await onBus { () throws(SessionError) in try await session.edits.enqueue([episodeID], at: queueIndex) }
        }
    }
}
