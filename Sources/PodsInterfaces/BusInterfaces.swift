import Logging
import PodsDBus
import PodsPlayback
import PodsSession

/// Everything podsd serves on the bus, made once over its session. MPRIS
/// alone on `mpris` (the connection a sandbox may be let talk to);
/// `org.pods.Player1`, `org.pods.Library2` and their signals on `pods`; long
/// listings on `listing` too (nil: they share `pods`). Each interface
/// follows the controller, the library and the settings itself; `services`
/// are what runs beside them, in the order the composition root runs them.
package struct BusInterfaces: Sendable {
    /// Run in this order, finished in the reverse.
    package let services: [any SessionService]
    private let exports: [(DBusConnection, DBusExportedObject)]

    /// `quit`: MPRIS `Quit` was called.
    package init(session: Session, mpris: DBusConnection, pods: DBusConnection, listing: DBusConnection?, logger: Logger,
                 quit: @escaping @Sendable () -> Void) async throws(MethodTable.Incomplete) {
        let (controller, playback) = (session.controller, session.playback)
        let publisher = await MPRISPublisher(connection: mpris, controller: controller)
        let signals = LibrarySignalEmitter(connection: pods)
        signals.follow(session.library)
        let inhibitor = SuspendInhibitor(connection: pods, controller: controller, logger: logger)
        let sleepGuard = SleepGuard(logger: logger) {
            await controller.pause()
            await playback.eventsHandled()  // the place the pause reported is saved
        }
        let network = MeteredNetworkMonitor(session: pods, logger: logger) { metered in
            await session.metered.networkChanged(metered: metered)
        }
        let trackList = TrackList(connection: mpris, controller: controller, library: session.library, artwork: session.artwork,
                                  preferences: session.preferences)
        let playlists = Playlists(connection: mpris, controller: controller, player: playback, service: session.playlists,
                                  library: session.library, artwork: session.artwork)
        await playlists.prime()  // what a client reads first is no change
        let player = try MPRISObject.make(
            controller: controller, navigation: Navigation(controller: controller, player: playback), publisher: publisher,
            trackList: trackList, playlists: playlists, session: session, supportedMimeTypes: SupportedFormats.mimeTypes(),
            window: await WindowRaiser.probe(connection: pods, logger: logger), quit: quit)
        let pods1 = try PlayerObject.make(controller: controller, player: playback, library: session.library, bookmarks: session.bookmarks,
                                      preferences: session.preferences, settings: session.settings)
        // One object on both: one read-ahead of pages, whichever connection a client pages on.
        let library = try LibraryObject.make(session, listingPeer: (listing ?? pods).uniqueName,
                                             progress: signals.refreshProgress, logger: logger)
        exports = [(mpris, player), (pods, pods1), (pods, library)] + (listing.map { [($0, library)] } ?? [])
        // Downloads wait on a metered network only where there are downloads.
        let watchesNetwork: [any SessionService] = session.mediaCache == nil ? [] : [network]
        services = [trackList, playlists, session] + watchesNetwork + [sleepGuard, inhibitor, controller]
    }

    /// Exports every object on its connection (before the names are claimed,
    /// so clients that introspect at `NameOwnerChanged` see them whole).
    package func export() {
        for (connection, object) in exports { connection.export(object) }
    }
}
