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

    /// Connects, makes the controller, the session and its interfaces,
    /// exports them, claims the names, then runs the services in order
    /// until a stop is asked for, and finishes them in reverse.
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
        let (library, unkept) = try openLibrary()
        defer { if let unkept { try? FileManager.default.removeItem(at: unkept) } }
        let preferences = PreferenceStore(file: configuration.configFile.map(ConfigFile.init), library: library,
                                          overrides: configuration.settingOverrides, logger: logger)
        let session = await Session(library: library, controller: try makeController(preferences), preferences: preferences,
                                    credentials: await openCredentials(on: podsConnection),
                                    cacheDirectory: configuration.cacheDirectory, logger: logger) { [logger] playback, artwork in
            EpisodeNotifier(connection: podsConnection, player: playback, library: library, preferences: preferences,
                            artwork: artwork, logger: logger)
        }
        // The library is served on a third connection too, for long listings: a page there never
        // queues ahead of an org.pods.Player1 answer in the socket of the second.
        let listing = await openListingConnection()
        let interfaces: BusInterfaces
        do throws(MethodTable.Incomplete) {
            interfaces = try await BusInterfaces(session: session, mpris: connection, pods: podsConnection, listing: listing,
                                                 logger: logger) { requestStop.yield("Quit called") }
        } catch { throw StartError(description: error.description) }
        interfaces.export()
        for each in [connection, podsConnection] { await stopWhenGone(each, requestStop) }
        // Pods' own name first: once MPRIS answers, everything does.
        try await claimName(PodsBus.name, on: podsConnection, requestStop: requestStop)
        try await claimName(MPRIS.busName, on: connection, requestStop: requestStop)
        logger.info("podsd owns \(MPRIS.busName) as \(connection.uniqueName) and \(PodsBus.name) as \(podsConnection.uniqueName)")

        await withDiscardingTaskGroup { group in
            for service in interfaces.services { group.addTask { await service.run() } }
            var reasons = stopRequests.makeAsyncIterator()
            let reason = await reasons.next() ?? "stopped"
            logger.info("podsd stopping: \(reason)")
            Self.exitIfStoppingStalls(logger: logger)
            for service in interfaces.services.reversed() { await service.finish() }
        }
        for each in [listing, podsConnection, connection] { each?.close() }
        library.checkpoint()
    }

    /// The service stops when `connection`'s bus goes away; calls of
    /// clients that leave the bus are cancelled.
    private func stopWhenGone(_ connection: DBusConnection, _ requestStop: AsyncStream<String>.Continuation) async {
        connection.onDisconnect { requestStop.yield("the bus connection closed") }
        do throws(DBusError) { try await connection.cancelCallsWhenCallersLeave() } catch {
            logger.warning("calls of clients that leave the bus will run to their end: \(error.message)")
        }
    }

    /// The passwords' store: the desktop's keyring when there is one, else a private file.
    private func openCredentials(on connection: DBusConnection) async -> CredentialStore? {
        guard let dataDirectory = configuration.dataDirectory else { return nil }
        return await CredentialStore.open(finding: { [logger] in await SecretService.find(on: connection, logger: logger) },
                                          file: dataDirectory.appendingPathComponent("credentials.json"), logger: logger)
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

    /// The library, and the directory to remove at the end when it is a
    /// stand-in: with no data directory, or one whose library cannot be
    /// opened (logged), podsd plays and serves a library in a temporary
    /// directory that nothing keeps across restarts.
    private func openLibrary() throws -> (Library, unkept: URL?) {
        if let directory = configuration.dataDirectory {
            do { return (try Library(directory: directory), nil) } catch {
                logger.error("\(error); nothing (podcasts, progress, speed and volume) will be kept")
            }
        }
        let unkept = FileManager.default.temporaryDirectory.appendingPathComponent("pods-unkept-\(getpid())-\(UUID().uuidString)")
        do { return (try Library(directory: unkept), unkept) } catch {
            throw StartError(description: "cannot make even a temporary library in \(unkept.path): \(error)")
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
