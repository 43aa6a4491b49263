import PodsDBus
import PodsProtocol

/// Drives a running `podsd` over MPRIS: what `pods` and the tests use.
public struct PlayerClient: Sendable {
    /// Why a command could not be carried out; `description` is one line for the user.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    public let connection: DBusConnection
    /// Where MPRIS calls go.
    private let destination: String
    /// Where calls to Pods' own interfaces go (`org.pods.Library2`, `org.pods.Player1`).
    private let podsDestination: String
    private let timeout: Duration

    public init(connection: DBusConnection, destination: String = MPRIS.busName, podsDestination: String = PodsBus.name,
                timeout: Duration = .seconds(5)) {
        self.connection = connection
        self.destination = destination
        self.podsDestination = podsDestination
        self.timeout = timeout
    }

    /// Connects to the session bus.
    public static func session() async throws(Failure) -> PlayerClient {
        do {
            return PlayerClient(connection: try await DBusConnection.session())
        } catch {
            throw Failure("cannot connect to the D-Bus session bus: \(error.message)")
        }
    }

    // MARK: - Transport

    public func play() async throws(Failure) { try await player(.play) }
    public func pause() async throws(Failure) { try await player(.pause) }
    public func playPause() async throws(Failure) { try await player(.playPause) }
    public func stop() async throws(Failure) { try await player(.stop) }
    /// The next chapter, else the next episode; stops with nothing next.
    public func next() async throws(Failure) { try await player(.next) }
    /// Back to the start of the chapter or episode, else the one before.
    public func previous() async throws(Failure) { try await player(.previous) }

    /// Plays `uri`; waits until it plays or fails.
    public func open(uri: String) async throws(Failure) {
        try await player(.openUri, [.string(uri)])
    }

    // MARK: - Position, rate, volume

    /// Moves by `offset` (negative goes back).
    public func seek(by offset: Duration) async throws(Failure) {
        try await player(.seek, [.int64(offset.microsecondsSaturating)])
    }

    /// Moves to `position` in the current track.
    public func setPosition(_ position: Duration) async throws(Failure) {
        let metadata = try await property(MPRIS.PlayerProperty.metadata.name).stringKeyedDictionary ?? [:]
        guard let trackID = metadata[MPRIS.Metadata.trackID]?.objectPathValue else {
            throw Failure("nothing is loaded")
        }
        try await player(.setPosition, [.objectPath(trackID), .int64(position.microsecondsSaturating)])
    }

    public func setRate(_ rate: Double) async throws(Failure) { try await setProperty(MPRIS.PlayerProperty.rate.name, .double(rate)) }
    public func setVolume(_ volume: Double) async throws(Failure) { try await setProperty(MPRIS.PlayerProperty.volume.name, .double(volume)) }

    // MARK: - Status

    public func status() async throws(Failure) -> PlayerStatus {
        let all = try await call(interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                                 [.string(MPRIS.playerInterface)])
        let properties = all.first?.stringKeyedDictionary ?? [:]
        let metadata = properties[MPRIS.PlayerProperty.metadata.name]?.stringKeyedDictionary ?? [:]
        var status = PlayerStatus(
            state: properties[MPRIS.PlayerProperty.playbackStatus.name]?.stringValue.flatMap(MPRIS.PlaybackStatus.init(rawValue:)) ?? .stopped,
            // While a chapter plays `xesam:title` is the chapter's; the episode's title stays in `pods:episodeTitle`.
            title: (metadata[MPRIS.Metadata.episodeTitle] ?? metadata[MPRIS.Metadata.title])?.stringValue,
            url: metadata[MPRIS.Metadata.url]?.stringValue,
            position: Double(properties[MPRIS.PlayerProperty.position.name]?.int64Value ?? 0) / 1_000_000,
            duration: metadata[MPRIS.Metadata.length]?.int64Value.map { Double($0) / 1_000_000 },
            rate: properties[MPRIS.PlayerProperty.rate.name]?.doubleValue ?? 1,
            volume: properties[MPRIS.PlayerProperty.volume.name]?.doubleValue ?? 1)
        if let trackID = metadata[MPRIS.Metadata.trackID]?.objectPathValue?.rawValue,
           trackID.hasPrefix(MPRIS.episodePathPrefix.rawValue + "/") {
            status.episodeId = metadata[MPRIS.Metadata.episodeID]?.int64Value
            status.podcastId = metadata[MPRIS.Metadata.podcastID]?.int64Value
        }
        if let index = metadata[MPRIS.Metadata.cueIndex]?.int64Value, let text = metadata[MPRIS.Metadata.cue]?.stringValue {
            status.cue = PlayerStatus.Cue(index: Int(index), start: metadata[MPRIS.Metadata.cueStart]?.doubleValue ?? 0, text: text)
        }
        return status
    }

    /// One `org.mpris.MediaPlayer2.Player` property.
    public func property(_ name: String) async throws(Failure) -> DBusValue {
        let reply = try await call(interface: "org.freedesktop.DBus.Properties", member: "Get",
                                   [.string(MPRIS.playerInterface), .string(name)])
        guard let value = reply.first else { throw Failure("podsd sent no value for \(name)") }
        return value.unwrapped
    }

    /// The playlist that plays next, as MPRIS `ActivePlaylist` names it: its
    /// title, or nil when it is the queue or none is active.
    public func activePlaylistOtherThanTheQueue() async throws(Failure) -> String? {
        let reply = try await call(interface: "org.freedesktop.DBus.Properties", member: "Get",
                                   [.string(MPRIS.playlistsInterface), .string(MPRIS.PlaylistsProperty.activePlaylist.name)])
        guard case .structure(let fields) = reply.first?.unwrapped, fields.count == 2, fields[0].boolValue == true,
              case .structure(let playlist) = fields[1], playlist.count == 3,
              let path = playlist[0].objectPathValue, path != MPRIS.queuePath, let title = playlist[1].stringValue else { return nil }
        // The menu's title ends with the count ("Commute (4)").
        if title.hasSuffix(")"), let open = title.range(of: " (", options: .backwards),
           title[open.upperBound..<title.index(before: title.endIndex)].allSatisfy(\.isNumber) {
            return String(title[..<open.lowerBound])
        }
        return title
    }

    // MARK: - Calls

    private func player(_ method: MPRISPlayerMethod, _ arguments: [DBusValue] = []) async throws(Failure) {
        _ = try await call(interface: MPRIS.playerInterface, member: method.name, arguments, timeout: method.timeout)
    }

    private func setProperty(_ name: String, _ value: DBusValue) async throws(Failure) {
        _ = try await call(interface: "org.freedesktop.DBus.Properties", member: "Set",
                           [.string(MPRIS.playerInterface), .string(name), .variant(value)])
    }

    private func call(interface: String, member: String, _ arguments: [DBusValue],
                      timeout: Duration? = nil) async throws(Failure) -> [DBusValue] {
        try await call(path: MPRIS.objectPath, interface: interface, member: member, arguments, timeout: timeout, at: destination)
    }

    /// A call to one of podsd's objects, under `PodsBus.name` unless `peer`
    /// says where; errors become one line for the user.
    func call(path: DBusObjectPath, interface: String, member: String, _ arguments: [DBusValue],
              timeout: Duration? = nil, at peer: String? = nil) async throws(Failure) -> [DBusValue] {
        let destination = peer ?? podsDestination
        do {
            return try await connection.call(
                destination: destination, path: path, interface: interface, member: member,
                arguments: arguments, timeout: timeout ?? self.timeout)
        } catch {
            throw failure(error, member: member, destination: destination)
        }
    }

    /// A call whose reply is read as it came (`DBusWireReader`); errors as `call`'s.
    func callForBody(path: DBusObjectPath, interface: String, member: String, _ arguments: [DBusValue],
                     timeout: Duration? = nil, at peer: String? = nil) async throws(Failure) -> DBusReplyBody {
        let destination = peer ?? podsDestination
        do {
            return try await connection.callForBody(
                destination: destination, path: path, interface: interface, member: member,
                arguments: arguments, timeout: timeout ?? self.timeout)
        } catch {
            throw failure(error, member: member, destination: destination)
        }
    }

    /// A failed call as one line for the user.
    private func failure(_ error: DBusError, member: String, destination: String) -> Failure {
        if error.isNoOwner {
            return Failure("podsd is not running (nothing owns \(destination) on the session bus); start it with: podsd &")
        }
        if error.name == DBusError.Name.noReply { return Failure("podsd did not answer \(member) in time") }
        return Failure(error.message.isEmpty ? error.name : error.message)
    }
}
