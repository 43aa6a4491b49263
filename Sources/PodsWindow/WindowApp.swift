import Foundation
import PodsClient
import PodsGtk
import PodsProtocol

/// Pods' window: a client of podsd that shows the library and the player
/// and follows every change from podsd's signals. Closing it leaves
/// playback running; a second launch raises the first window.
@MainActor
public final class WindowApp {
    /// The application id: podsd owns `org.pods.Pods` on the bus, the window this.
    public static let applicationID = PodsWindowBus.applicationID

    let application = Application(id: WindowApp.applicationID)
    var window: Window?
    var backend: WindowBackend?
    var podcasts: PodcastsPage!
    var episodes: EpisodesPage!
    var episode: EpisodePage!
    var player: PlayerBar!
    /// Made at activation: GTK makes no widget before the application starts it.
    var pages: Pages!
    var views: ViewStack!
    var banner: Banner!
    /// Behind a sandbox's MPRIS-only grant: the lists are not read (each read would only fail).
    var libraryOutOfReach = false
    static let outOfReach = "The library is out of reach: this window may talk only to the player (a sandbox’s MPRIS-only "
        + "grant). Play, pause, seek and the rest of the player still work."
    var lists: EpisodeLists!
    var findPage: FindPage!
    var directory: DirectoryPage!
    var stats: StatsPage!
    var transcript: TranscriptPage!
    var follower: Task<Void, Never>?
    /// The settings window open (or last open): its controls' handlers hold it unowned.
    var settings: SettingsDialog?
    let statusRead = SerialRead()
    let seek = SeekCoalescer()
    let volume = SeekCoalescer()

    public init() {}

    /// Runs until the window closes; the exit status.
    public func run() -> Int32 {
        application.onActivate { [unowned self] in self.activate() }
        return application.run()
    }

    func activate() {
        if let window { return window.present() }
        pages = Pages()
        podcasts = PodcastsPage(subscribe: { [unowned self] url in self.subscribe(url) },
                                open: { [unowned self] podcast in self.open(podcast) },
                                unsubscribe: { [unowned self] podcast in self.unsubscribe(podcast) },
                                search: { [unowned self] term in self.searchDirectories(term) },
                                importOPML: { [unowned self] in self.importOPML() },
                                exportOPML: { [unowned self] in self.exportOPML() })
        directory = DirectoryPage(back: { [unowned self] in self.pages.show(self.podcasts.root) },
                                  subscribe: { [unowned self] found in self.subscribe(found.feedURL) })
        episodes = EpisodesPage(back: { [unowned self] in self.pages.show(self.podcasts.root) },
                                refresh: { [unowned self] id in self.refresh(id) },
                                play: { [unowned self] episode in self.play(episode) },
                                open: { [unowned self] episode in self.open(episode) },
                                header: ShowHeader { [unowned self] command in self.perform(command) },
                                settings: { [unowned self] podcast in self.openSettings(podcast) })
        episode = EpisodePage(back: { [unowned self] in self.pages.show(self.episodes.root) },
                              command: { [unowned self] id, command in self.perform(command, on: id) })
        player = PlayerBar { [unowned self] command in self.perform(command) }
        lists = EpisodeLists { [unowned self] error in self.report(error) }
        banner = Banner()
        findPage = FindPage(report: { [unowned self] error in self.report(error) },
                            play: { [unowned self] id, start in self.play(id, from: start) })
        stats = StatsPage()
        transcript = TranscriptPage(back: { [unowned self] in self.pages.show(self.episode.root) },
                                    playFrom: { [unowned self] id, start in self.play(id, from: start) })
        pages.push(podcasts.root, after: nil)
        views = ViewStack(title: "Pods")
        let shown: [(Widget, String, String, String)] = [
            (pages, "podcasts", "Podcasts", "audio-x-generic-symbolic"), (lists.upNext.root, "up-next", "Up Next", "view-list-symbolic"),
            (lists.downloads.root, "downloads", "Downloads", "folder-download-symbolic"),
            (lists.bookmarks.root, "bookmarks", "Bookmarks", "user-bookmarks-symbolic"),
            (findPage.root, "find", "Find", "edit-find-symbolic"),
            (Scrolled(stats.root), "stats", "Stats", "preferences-system-time-symbolic"),
        ]
        for (view, name, title, icon) in shown { views.add(view, name: name, title: title, icon: icon) }
        views.onSwitch { [unowned self] name in if name == "stats" { self.stats.reload() } }
        let column = Box(vertical: true)
        column.append(banner)
        column.append(views)
        column.append(views.switcherBar)
        column.append(player.root)
        let window = Window(application, title: "Pods", content: column, views: views)
        for (number, (_, name, _, _)) in shown.enumerated() {
            window.action("show-\(name)", keys: ["<Alt>\(number + 1)"]) { [unowned self] in self.views.show(name) }
        }
        window.action("play-pause", keys: ["<Control>space"]) { [unowned self] in self.perform(.playPause) }
        window.action("back", keys: ["<Alt>Left"]) { [unowned self] in self.pages.show(self.podcasts.root) }
        application.action("quit", keys: ["<Control>q"]) { [unowned self] in self.application.quit() }
        window.action("preferences", keys: ["<Control>comma"]) { [unowned self] in self.openSettings(nil) }
        let preferences = Button(icon: "emblem-system-symbolic", name: "Preferences")
        preferences.onClick { [unowned self] in self.openSettings(nil) }
        window.addToHeader(preferences)
        ShortcutsWindow.attach(to: window, application: application, [
            .init("Playback", [("Play or pause", "<Control>space")]),
            .init("Views", shown.enumerated().map { number, view in (view.2, "<Alt>\(number + 1)") }
                + [("Back to the podcasts", "<Alt>Left")]),
            .init("The window", [("Preferences", "<Control>comma"), ("Keyboard shortcuts", "<Control>question"),
                                 ("Close the window (playback goes on)", "<Control>q")]),
        ])
        self.window = window
        window.present()
        follower = Task { await self.connect() }
    }

    // MARK: - podsd

    func connect() async {
        let client: PlayerClient
        do throws(PlayerClient.Failure) { client = try await PlayerClient.session() } catch {
            banner.show("Pods cannot reach the session bus: \(error.description)")
            return
        }
        let backend = WindowBackend(player: client)
        self.backend = backend
        findPage.connect(backend)
        stats.connect(backend)
        // Follow first, so nothing said between the first read and the match is missed.
        let changes = AsyncStream<PodsdChange>.makeStream()
        Task.detached { await client.followChanges { changes.continuation.yield($0) } }
        if await client.reachPodsd() {
            readStatus()
            if await client.reachLibrary() {
                lists.backend = backend
                reloadPodcasts()
            } else {
                libraryOutOfReach = true
                banner.show(Self.outOfReach)
            }
        } else {
            lists.backend = backend  // read when podsd is back
            banner.show("Pods’ service (podsd) does not answer. The window shows it as soon as it does.")
        }
        for await change in changes.stream { handle(change) }
    }

    func handle(_ change: PodsdChange) {
        lists.handle(change)
        switch change {
        case .player: readStatus()
        case .podcasts: reloadPodcasts()
        case .episodes(let podcast): if episodes.podcast?.id == podcast { reloadEpisodes(podcast) }
        case .episode(let id):
            if episodes.contains(id) { reloadEpisode(id) }
            if episode.details?.episodeID == id { loadDetails(id) }
        case .podsd(let running):
            if !running {
                banner.show("Pods’ service (podsd) stopped. The window reconnects when it is back; nothing you did is lost.")
                player.show(nil)
            } else if libraryOutOfReach {
                banner.show(Self.outOfReach)
                readStatus()
            } else {
                banner.hide()
                reloadPodcasts()
                readStatus()
            }
        case .queue, .downloads, .bookmarks, .playlists, .refreshProgress: break
        }
    }

    func reloadPodcasts() {
        guard let backend, !libraryOutOfReach else { return }
        Task {
            do throws(PlayerClient.Failure) {
                let rows = try await backend.library.podcastRows()
                podcasts.show(rows)
                if let shown = episodes.podcast, let fresh = rows.first(where: { $0.id == shown.id }) { episodes.show(fresh) }
            } catch { report(error) }
        }
    }

    func open(_ podcast: PodcastRow) {
        episodes.show(podcast)
        episodes.show(episodes: [])
        pages.push(episodes.root, after: podcasts.root)
        reloadEpisodes(podcast.id, artwork: true)
        loadShow(podcast)
    }

    /// The show's people, funding, trailers and podroll, at its page's top.
    func loadShow(_ podcast: PodcastRow) {
        guard let backend else { return }
        Task {
            guard let item = try? await backend.library.podcast(String(podcast.id)), episodes.podcast?.id == podcast.id else { return }
            episodes.header.show(Items.show(item), of: podcast.id, title: podcast.title)
        }
    }

    /// `artwork`: with the show's artwork (podsd renders it for an episode: the newest's).
    func reloadEpisodes(_ podcast: Int64, artwork: Bool = false) {
        guard let backend else { return }
        Task {
            do throws(PlayerClient.Failure) {
                let rows = try await backend.library.episodeRows(podcast: podcast)
                guard episodes.podcast?.id == podcast else { return }
                episodes.show(episodes: rows)
                guard artwork, let newest = rows.first, let png = try? await backend.library.artworkPNG(episode: newest.id, pixels: 192)
                else { return }
                episodes.header.show(artwork: png, of: podcast, title: episodes.podcast?.title ?? "")
            } catch { report(error) }
        }
    }

    func reloadEpisode(_ id: Int64) {
        guard let backend else { return }
        Task {
            guard let item = try? await backend.library.episode(id), let row = Items.episode(item) else { return }
            episodes.replace(row)
        }
    }

    func open(_ row: EpisodeRow) {
        pages.push(episode.root, after: episodes.root)
        loadDetails(row.id, artwork: true)
    }

    /// The episode's page read again (its progress, played); with its artwork when first opened.
    func loadDetails(_ id: Int64, artwork: Bool = false) {
        guard let backend else { return }
        Task {
            do throws(PlayerClient.Failure) {
                guard let details = try await backend.player.episodeDetails(id) else { return }
                episode.show(details, loaded: player.status?.episodeId == id)
            } catch { report(error) }
            guard artwork, let png = try? await backend.library.artworkPNG(episode: id, pixels: 320) else { return }
            episode.show(artwork: png, of: id)
        }
    }

    /// One read of MPRIS at a time; a change that arrives during it reads again after.
    func readStatus() {
        guard let backend else { return }
        statusRead.request { [weak self] in
            var status = try? await backend.player.status()
            // What MPRIS has no word for: the chapter, the sleep timer, the levelling, why it paused.
            if status != nil, let extras = try? await backend.pods.extras() { status?.add(extras: extras) }
            guard let self else { return }
            self.player.show(status)
            self.episode.player(hasLoaded: status?.episodeId != nil && status?.episodeId == self.episode.details?.episodeID)
        }
    }


    /// A failure in the listener's words, over the window (never a raw D-Bus error name).
    func report(_ error: PlayerClient.Failure) {
        window?.toast(error.description)
    }
}
