import Foundation
import Logging
import PodsCache
import PodsDBus
import PodsHTTP
import PodsInterfaces
import PodsLibrary
import PodsPlayback
import PodsPlayer
import PodsProtocol
import PodsSession
import PodsSettings

/// The `podsd` service: owns `org.mpris.MediaPlayer2.pods` and plays.
///
/// `run()` returns after `Quit`, when the name is lost to `podsd --replace`,
/// when the bus goes away, or at one of `Configuration.stopSignals` (it
/// stops as at `Quit`: the last progress saved, caches closed).
public struct PodsService: Sendable {
    /// How the service is set up.
    public struct Configuration: Sendable {
        /// Take the name from a running instance.
        public var replace: Bool
        /// A bus address; nil for the session bus.
        public var busAddress: String?
        /// Where `library.sqlite` lives; nil keeps nothing across restarts.
        public var dataDirectory: URL?
        /// Where episode caches, downloads and artwork live; nil streams
        /// every episode plainly, without a cache.
        public var cacheDirectory: URL?
        /// `config.toml`; nil keeps the defaults and refuses `pods config` changes.
        public var configFile: URL?
        /// Settings given on podsd's command line: they win over the file.
        public var settingOverrides: [SettingKey: SettingValue] = [:]
        /// Signals that stop the service gracefully (podsd: SIGTERM, SIGINT); they no longer end the process by themselves.
        public var stopSignals: [Int32] = []

        /// `audioSink` (a `gst-launch` sink description) overrides the config file's `audio-sink`.
        public init(audioSink: String? = nil, replace: Bool = false, busAddress: String? = nil, dataDirectory: URL? = nil) {
            if let audioSink { settingOverrides[.audioSink] = .text(audioSink) }
            self.replace = replace
            self.busAddress = busAddress
            self.dataDirectory = dataDirectory
        }
    }

    /// Why the service could not start.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    private let configuration: Configuration
    private let logger: Logger

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        let (stopRequests, requestStop) = AsyncStream<String>.makeStream()
        // Taken before anything else: a signal during start-up stops the service once it runs.
        let signalSources = configuration.stopSignals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { requestStop.yield("shutdown signal") }
            source.resume()
            return source
        }
        defer { for source in signalSources { source.cancel() } }
        // Two connections, two names: MPRIS alone on the one a sandbox may be let talk to,
        // the library, settings and sync on their own (`PodsBus`).
        let connection: DBusConnection, podsConnection: DBusConnection
        do throws(DBusError) {
            connection = try await connectToBus()
            podsConnection = try await connectToBus()
        } catch {
            throw StartError(description: "cannot connect to the D-Bus session bus: \(error.message)")
        }
        let library = openLibrary()
        let preferences = PreferenceStore(file: configuration.configFile.map(ConfigFile.init), library: library,
                                          overrides: configuration.settingOverrides, logger: logger)
        let controller = try makeController(preferences)
        let saved = savedSettings(in: library)
        try? await controller.setRate(saved.rate)
        try? await controller.setVolume(saved.volume)
        let recorder = SettingsRecorder(initial: saved)
        let publisher = MPRISPublisher(connection: connection, initial: await controller.currentState())
        let signals = LibrarySignalEmitter(connection: podsConnection)
        let cacheDirectory = configuration.cacheDirectory
        let credentials = if let dataDirectory = configuration.dataDirectory {
            await CredentialStore.open(finding: { [logger] in await SecretService.find(on: podsConnection, logger: logger) },
                                       file: dataDirectory.appendingPathComponent("credentials.json"), logger: logger)
        } else { CredentialStore?.none }
        let session = library.map { library in
            Session(library: library, controller: controller, preferences: preferences, credentials: credentials,
                    cacheDirectory: cacheDirectory, logger: logger) { playback, artwork in
                EpisodeNotifier(connection: podsConnection, player: playback, library: library, preferences: preferences,
                                artwork: artwork, logger: logger)
            }
        }
        let player = session?.playback, sync = session?.sync, scheduler = session?.scheduler
        let mediaCache = session?.mediaCache
        // On a metered network downloads wait, unless metered-downloads allows them.
        let downloadsWait: @Sendable (Bool) async -> Void = { metered in
            await mediaCache?.setMetered(metered && preferences.value(.meteredDownloads, podcast: nil).textValue != "allow")
        }
        let network = MeteredNetworkMonitor(session: podsConnection, logger: logger, changed: downloadsWait)
        let podcastRules = session?.rules, loudnessSurvey = session?.loudness
        let settingsChanged: @Sendable () -> Void = {
            scheduler?.poke()
            Task { await player?.applyPreferences() }
            Task { await podcastRules?.tendDownloads() }  // a new keep-downloads applies now; ignoring is for what arrives
            loudnessSurvey?.poke()  // loudness turned on: the podcast's downloads are measured
            Task { await downloadsWait(network.isMetered) }
        }
        // podsd picks up a changed config.toml without a restart.
        let watcher = configuration.configFile.map { file in
            ConfigWatcher(url: file) { [logger] in
                guard preferences.reload() else { return }
                logger.info("config.toml changed; the new settings apply now")
                settingsChanged()
            }
        }
        do throws(SettingsError) { try watcher?.start() } catch {
            logger.warning("\(error.message); config.toml changes will apply when podsd restarts")
        }
        let trackList = TrackList(connection: connection, controller: controller, library: library, artwork: session?.artwork,
                                  preferences: preferences)
        let playlists = session.map {
            Playlists(connection: connection, controller: controller, player: $0.playback, service: $0.playlists, library: $0.library,
                      artwork: $0.artwork)
        }
        if let library {
            signals.follow(library)
            library.changes.follow { changes in
                if changes.queue || !changes.episodes.isEmpty || !changes.status.isEmpty { trackList.refresh() }
                if let playlists, playlists.follows(changes) { playlists.refresh(kept: playlists.keptFollow(changes)) }
            }
        }
        let rules = ListeningRules(player: player, recorder: recorder, sync: sync, preferences: preferences,
                                   listening: session?.listening)
        let inhibitor = SuspendInhibitor(connection: podsConnection, logger: logger)
        let sleepGuard = SleepGuard(logger: logger) {
            await controller.pause()
            await player?.eventsHandled()  // the place the pause reported is saved
        }
        await controller.observe { change in
            publisher.publish(change)
            if case .state(let state) = change { inhibitor.follow(state) }
            let track = rules.observe(change)
            if track.newTrack { playlists?.refresh(kept: false) }
            // The track list follows a new track, and the loaded one's length or artwork arriving.
            if track.changed { trackList.refresh() }
        }
        connection.export(MPRISObject.make(
            controller: controller, navigation: Navigation(controller: controller, player: player), publisher: publisher,
            trackList: trackList, playlists: playlists, session: session,
            supportedMimeTypes: SupportedFormats.mimeTypes(), quit: { requestStop.yield("Quit called") }))
        podsConnection.export(PlayerObject.make(controller: controller, player: player, library: library, bookmarks: session?.bookmarks,
                                                preferences: preferences, settingsChanged: settingsChanged))
        // The library is served on a third connection too, for long listings: a page there never
        // queues ahead of an org.pods.Player1 answer in the socket of the second.
        let listing = player == nil ? nil : await openListingConnection()
        if let session {
            // One object on both: one read-ahead of pages, whichever connection a client pages on.
            let libraryObject: DBusExportedObject
            do throws(LibraryObject.IncompleteTable) {
                libraryObject = try LibraryObject.make(session, listingPeer: listing?.uniqueName ?? podsConnection.uniqueName,
                                                       progress: signals.refreshProgress, logger: logger)
            } catch { throw StartError(description: error.description) }
            podsConnection.export(libraryObject)
            listing?.export(libraryObject)
        }
        for each in [connection, podsConnection] {
            each.onDisconnect { requestStop.yield("the bus connection closed") }
            do throws(DBusError) { try await each.cancelCallsWhenCallersLeave() } catch {
                logger.warning("calls of clients that leave the bus will run to their end: \(error.message)")
            }
        }

        // Pods' own name first: once MPRIS answers, everything does.
        await playlists?.prime()
        try await claimName(PodsBus.name, on: podsConnection, requestStop: requestStop)
        try await claimName(MPRIS.busName, on: connection, requestStop: requestStop)
        logger.info("podsd owns \(MPRIS.busName) as \(connection.uniqueName) and \(PodsBus.name) as \(podsConnection.uniqueName)")

        await withDiscardingTaskGroup { group in
            group.addTask { await controller.run() }
            group.addTask { await inhibitor.run() }
            group.addTask { await sleepGuard.run() }
            if mediaCache != nil { group.addTask { await network.run() } }
            group.addTask { await trackList.run() }
            if let playlists { group.addTask { await playlists.run() } }
            if let session {
                group.addTask { await session.run() }
                group.addTask { await session.start() }
            }
            trackList.refresh()
            playlists?.refresh()
            if let library {
                group.addTask { await recorder.run(library: library, logger: logger) }
            }
            var reasons = stopRequests.makeAsyncIterator()
            let reason = await reasons.next() ?? "stopped"
            logger.info("podsd stopping: \(reason)")
            Self.exitIfStoppingStalls(logger: logger)
            await controller.shutdown()  // reports the last progress first
            inhibitor.finish()  // released before podsd exits: the group waits for its run()
            sleepGuard.finish()
            network.finish()
            await session?.stop()
            recorder.finish()
            trackList.finish()
            playlists?.finish()
            watcher?.stop()
        }
        listing?.close()
        podsConnection.close()
        connection.close()
        library?.checkpoint()
    }

    /// The longest a stop may take. A stop waits for the library's current
    /// job, which nothing can cut short, and a session's manager kills a
    /// service that does not end after 90 s (ADVERSARIAL-5, 5: SIGTERM was
    /// not obeyed while a long job ran). The place is saved every second
    /// and SQLite's log survives an exit at any moment, so leaving then
    /// loses what a kill -9 would: under a second.
    static let stopBound = Duration.seconds(4)

    /// Ends the process `stopBound` after the stop began if it has not ended by then.
    private static func exitIfStoppingStalls(logger: Logger) {
        let thread = Thread {
            Thread.sleep(forTimeInterval: Double(stopBound.components.seconds))
            logger.warning("podsd stopping: a library job did not end within \(stopBound); leaving with the place saved a moment ago")
            _exit(0)
        }
        thread.name = "pods-stop-bound"
        thread.start()
    }

    private func connectToBus() async throws(DBusError) -> DBusConnection {
        if let address = configuration.busAddress { return try await DBusConnection.connect(address: address) }
        return try await DBusConnection.session()
    }

    /// The second connection (`ListingPeer`), or nil (logged) when the bus
    /// refuses it: then listings share the first.
    private func openListingConnection() async -> DBusConnection? {
        do throws(DBusError) {
            let listing = try await connectToBus()
            try await listing.cancelCallsWhenCallersLeave()
            return listing
        } catch {
            logger.warning("long listings share the MPRIS connection: a second bus connection failed: \(error.message)")
            return nil
        }
    }

    /// The controller with the sink the settings name: podsd's flag or
    /// `PODS_AUDIO_SINK` (which must work), else config.toml's (which falls
    /// back to the desktop's default, logged, when it does not).
    private func makeController(_ preferences: PreferenceStore) throws -> PlayerController {
        let entry = preferences.entry(.audioSink, podcast: nil)
        let sink = entry.value.textValue.flatMap { $0.isEmpty ? nil : $0 }
        do {
            return try PlayerController(audioSink: sink, explainNetworkFailure: NetworkFailureProbe.explain)
        } catch {
            guard entry.source == "config", configuration.settingOverrides[.audioSink] == nil else {
                throw StartError(description: error.message)
            }
            logger.error("config.toml audio-sink: \(error.message); playing through the desktop's default")
            do { return try PlayerController(audioSink: nil, explainNetworkFailure: NetworkFailureProbe.explain) } catch { throw StartError(description: error.message) }
        }
    }

    /// The library, or nil (logged) when it cannot be opened: podsd still
    /// plays, it just remembers nothing.
    private func openLibrary() -> Library? {
        guard let directory = configuration.dataDirectory else { return nil }
        do {
            return try Library(directory: directory)
        } catch {
            logger.error("\(error); nothing (podcasts, progress, speed and volume) will be kept")
            return nil
        }
    }

    /// The speed and volume kept from the last run; defaults if there are none.
    private func savedSettings(in library: Library?) -> PlaybackSettings {
        guard let library else { return PlaybackSettings() }
        do {
            return try library.playbackSettings()
        } catch {
            logger.error("could not read settings: \(error)")
            return PlaybackSettings()
        }
    }

    /// Owns the name after the object is exported, so clients that
    /// introspect at `NameOwnerChanged` see it whole; stops when it is lost.
    private func claimName(_ name: String, on connection: DBusConnection,
                           requestStop: AsyncStream<String>.Continuation) async throws {
        let nameLost = try await connection.signals(matching: DBusSignalMatch(
            sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameLost"))
        Task {
            for await signal in nameLost where signal.arguments.first?.stringValue == name {
                requestStop.yield("another podsd took \(name)")
                return
            }
        }
        let result: DBusConnection.NameRequestResult
        do {
            result = try await connection.requestName(name, allowReplacement: true, replaceExisting: configuration.replace)
        } catch {
            throw StartError(description: "cannot request \(name): \(error.message)")
        }
        switch result {
        case .primaryOwner, .alreadyOwner:
            return
        case .exists, .inQueue:
            let owner = (try? await connection.processID(of: name)).map { " (pid \($0))" } ?? ""
            throw StartError(description:
                "\(name) is already owned by another process\(owner); run podsd --replace to take it over")
        }
    }
}
