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

    private let application = Application(id: WindowApp.applicationID)
    private var window: Window?
    private var backend: WindowBackend?
    private var podcasts: PodcastsPage!
    private var episodes: EpisodesPage!
    private var episode: EpisodePage!
    private var player: PlayerBar!
    /// Made at activation: GTK makes no widget before the application starts it.
    private var pages: Pages!
    private var views: ViewStack!
    private var banner: Banner!
    /// Behind a sandbox's MPRIS-only grant: the lists are not read (each read would only fail).
    private var libraryOutOfReach = false
    private static let outOfReach = "The library is out of reach: this window may talk only to the player (a sandbox’s MPRIS-only "
        + "grant). Play, pause, seek and the rest of the player still work."
    private var lists: EpisodeLists!
    private var findPage: FindPage!
    private var directory: DirectoryPage!
    private var stats: StatsPage!
    private var transcript: TranscriptPage!
    private var follower: Task<Void, Never>?
    /// The settings window open (or last open): its controls' handlers hold it unowned.
    private var settings: SettingsDialog?
    private let statusRead = SerialRead()
    private let seek = SeekCoalescer()
    private let volume = SeekCoalescer()

    public init() {}

    /// Runs until the window closes; the exit status.
    public func run() -> Int32 {
        application.onActivate { [unowned self] in self.activate() }
        return application.run()
    }

    private func activate() {
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
        findPage = FindPage { [unowned self] error in self.report(error) }
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

    private func connect() async {
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

    private func handle(_ change: PodsdChange) {
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

    private func reloadPodcasts() {
        guard let backend, !libraryOutOfReach else { return }
        Task {
            do throws(PlayerClient.Failure) {
                let rows = try await backend.library.podcastRows()
                podcasts.show(rows)
                if let shown = episodes.podcast, let fresh = rows.first(where: { $0.id == shown.id }) { episodes.show(fresh) }
            } catch { report(error) }
        }
    }

    private func open(_ podcast: PodcastRow) {
        episodes.show(podcast)
        episodes.show(episodes: [])
        pages.push(episodes.root, after: podcasts.root)
        reloadEpisodes(podcast.id, artwork: true)
        loadShow(podcast)
    }

    /// The show's people, funding, trailers and podroll, at its page's top.
    private func loadShow(_ podcast: PodcastRow) {
        guard let backend else { return }
        Task {
            guard let item = try? await backend.library.podcast(String(podcast.id)), episodes.podcast?.id == podcast.id else { return }
            episodes.header.show(Items.show(item), of: podcast.id, title: podcast.title)
        }
    }

    /// `artwork`: with the show's artwork (podsd renders it for an episode: the newest's).
    private func reloadEpisodes(_ podcast: Int64, artwork: Bool = false) {
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

    private func reloadEpisode(_ id: Int64) {
        guard let backend else { return }
        Task {
            guard let item = try? await backend.library.episode(id), let row = Items.episode(item) else { return }
            episodes.replace(row)
        }
    }

    private func open(_ row: EpisodeRow) {
        pages.push(episode.root, after: episodes.root)
        loadDetails(row.id, artwork: true)
    }

    /// The episode's page read again (its progress, played); with its artwork when first opened.
    private func loadDetails(_ id: Int64, artwork: Bool = false) {
        guard let backend else { return }
        Task {
            do throws(PlayerClient.Failure) {
                let item = try await backend.library.episode(id)
                let chapters = (try? await backend.pods.chapters(episode: id)) ?? []
                let podcast = try? await backend.library.podcast(String(Items.fields(item)["podcastId"]?.int64Value ?? 0))
                guard let details = Items.page(item, chapters: chapters, podcast: podcast) else { return }
                episode.show(details, loaded: player.status?.episodeId == id)
            } catch { report(error) }
            guard artwork, let png = try? await backend.library.artworkPNG(episode: id, pixels: 320) else { return }
            episode.show(artwork: png, of: id)
        }
    }

    /// The player's settings (`podcast` nil) or a podcast's own, in a window over this one.
    private func openSettings(_ podcast: PodcastRow?) {
        guard let backend, let window else { return }
        Task {
            do throws(PlayerClient.Failure) {
                let rows = try await backend.pods.config(podcast: podcast.map { String($0.id) }, key: nil).compactMap(Items.setting)
                let dialog = SettingsDialog(over: window, backend: backend, podcast: podcast.map { ($0.id, $0.title) }, settings: rows)
                settings = dialog
                dialog.present()
            } catch { report(error) }
        }
    }

    /// The episode's whole transcript, on a page after its own.
    private func openTranscript(_ id: Int64) {
        guard let backend else { return }
        transcript.show(episode: id, title: episode.details?.title ?? "")
        pages.push(transcript.root, after: episode.root)
        Task {
            do throws(PlayerClient.Failure) {
                transcript.show(try await Self.transcriptRows(backend.library, id), of: id)
            } catch { report(error) }
        }
    }

    /// Read off the main actor, page by page, at most `TranscriptPage.maximumLines`.
    nonisolated static func transcriptRows(_ library: LibraryClient, _ id: Int64) async throws(PlayerClient.Failure) -> [EpisodeRow] {
        var rows: [EpisodeRow] = []
        try await library.transcript(episode: id) { page in
            for cue in page where rows.count < TranscriptPage.maximumLines {
                rows.append(Items.transcriptRow(cue, episode: id, number: rows.count + 1))
            }
        }
        return rows
    }

    /// Plays `id` from `seconds`: a seek when it is loaded.
    private func play(_ id: Int64, from seconds: Double) {
        // A time from a transcript file (through podsd): range-checked before it becomes a Duration.
        guard let backend, seconds.isFinite, seconds >= 0, seconds < 10_000_000 else { return }
        let start = seconds
        let loaded = player.status?.episodeId == id
        Task {
            do throws(PlayerClient.Failure) {
                if loaded { try await backend.player.setPosition(.seconds(start)) } else { try await backend.library.play(episode: id, at: start) }
            } catch { report(error) }
        }
    }

    /// One read of MPRIS at a time; a change that arrives during it reads again after.
    private func readStatus() {
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

    // MARK: - Doing

    private func subscribe(_ url: String) {
        guard let backend else { return }
        window?.toast("Subscribing to \(url)…")
        Task {
            do throws(PlayerClient.Failure) {
                let podcast = try await backend.library.subscribe(url)
                window?.toast("Subscribed to \(Items.fields(podcast)["title"]?.stringValue ?? url)")
            } catch { report(error) }
        }
    }

    /// Gone from the list at once, unsubscribed once its Undo is over (5 s):
    /// unsubscribing drops the podcast's episodes and progress, which no
    /// resubscription brings back, so it waits for the listener to be sure.
    private func unsubscribe(_ podcast: PodcastRow) {
        guard let backend else { return }
        if episodes.podcast?.id == podcast.id { pages.show(podcasts.root) }
        podcasts.hidden.insert(podcast.id)
        window?.toast("Unsubscribed from \(podcast.title)", button: ("Undo", { [weak self] in self?.podcasts.hidden.remove(podcast.id) }))
        Task {
            try? await Task.sleep(for: .seconds(6))
            guard podcasts.hidden.contains(podcast.id) else { return }  // undone
            do throws(PlayerClient.Failure) {
                try await backend.library.unsubscribe(String(podcast.id))
                let rows = try await backend.library.podcastRows()
                podcasts.hidden.remove(podcast.id)  // a later podcast may be given its id
                podcasts.show(rows)
            } catch {
                podcasts.hidden.remove(podcast.id)
                report(error)
            }
        }
    }

    /// An OPML file chosen by the listener (read here: it is theirs, not
    /// podsd's) is subscribed to, feed by feed, by podsd.
    private func importOPML() {
        guard let window, let backend else { return }
        FileChooser.ask(over: window, title: "Import subscriptions", accept: "Import", purpose: .open, filterName: "OPML files",
                        patterns: ["*.opml", "*.xml"], folder: Self.home) { [weak self] path in
            guard let self, let path else { return }
            // Read up to one byte past the bound, so a file that grows while it is read is still refused.
            let handle = FileHandle(forReadingAtPath: path)
            defer { try? handle?.close() }
            guard let data = try? handle?.read(upToCount: Self.largestOPML + 1), data.count <= Self.largestOPML else {
                return window.toast("\((path as NSString).lastPathComponent) is no OPML file Pods can read (at most 10 MB)")
            }
            window.toast("Importing \((path as NSString).lastPathComponent)…")
            Task {
                do throws(PlayerClient.Failure) {
                    let results = try await backend.library.importOPML(String(decoding: data, as: UTF8.self))
                    let failed = results.filter { Items.fields($0)["error"]?.stringValue != nil }.count
                    window.toast("Subscribed to \(results.count - failed) of \(results.count) feeds" + (failed > 0 ? "; \(failed) could not be read" : ""))
                } catch { self.report(error) }
            }
        }
    }

    static let largestOPML = 10 << 20
    /// Where the file chooser starts: `HOME`, as GLib takes it.
    static var home: String { ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory() }

    /// The subscriptions written as OPML where the listener chooses.
    private func exportOPML() {
        guard let window, let backend else { return }
        FileChooser.ask(over: window, title: "Export subscriptions", accept: "Export", purpose: .save(suggestedName: "Podcasts.opml"),
                        filterName: "OPML files", patterns: ["*.opml"], folder: Self.home) { [weak self] path in
            guard let self, let path else { return }
            Task {
                do throws(PlayerClient.Failure) {
                    let document = try await backend.library.opmlDocument()
                    do { try Data(document.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
                        return window.toast("Could not write \(path): \(error.localizedDescription)")
                    }
                    window.toast("Exported the subscriptions to \(path)")
                } catch { self.report(error) }
            }
        }
    }

    /// The directories searched for `term`, on a page after the podcasts.
    private func searchDirectories(_ term: String) {
        guard let backend else { return }
        directory.show(term, nil)
        pages.push(directory.root, after: podcasts.root)
        Task {
            do throws(PlayerClient.Failure) {
                let found = try await backend.library.search(term, limit: 50).compactMap(Items.search)
                directory.show(term, found)
            } catch {
                directory.show(term, [])
                report(error)
            }
        }
    }

    private func refresh(_ podcast: Int64) {
        guard let backend else { return }
        Task {
            do throws(PlayerClient.Failure) { _ = try await backend.library.refresh(podcast: String(podcast)) } catch { report(error) }
        }
    }

    private func play(_ episode: EpisodeRow) {
        guard let backend else { return }
        Task {
            do throws(PlayerClient.Failure) { try await backend.library.play(episode: episode.id) } catch { report(error) }
        }
    }

    private func perform(_ command: ShowHeader.Command) {
        guard let backend else { return }
        switch command {
        case .open(let address): if EpisodeDetails.isOpenable(address) { window?.open(address: address) }
        case .subscribe(let feed): subscribe(feed)
        case .playTrailer(let url):
            Task { do throws(PlayerClient.Failure) { try await backend.player.open(uri: url) } catch { report(error) } }
        }
    }

    private func perform(_ command: EpisodePage.Command, on id: Int64) {
        guard let backend else { return }
        let library = backend.library, pods = backend.pods
        let loaded = player.status?.episodeId == id
        if case .open(let address) = command {
            guard EpisodeDetails.isOpenable(address) else { return }
            return window?.open(address: address) ?? ()
        }
        Task {
            do throws(PlayerClient.Failure) {
                switch command {
                case .play: try await library.play(episode: id)
                case .playFrom(let seconds): try await library.play(episode: id, at: seconds)
                case .chapter(let index, let start):
                    if loaded { try await pods.goToChapter(String(index)) } else { try await library.play(episode: id, at: start) }
                case .enqueue:
                    try await library.enqueue([id], at: nil)
                    window?.toast("Added to Up Next")
                case .download:
                    try await library.download(id)
                    window?.toast("Downloading")
                case .mark(let played): try await library.mark(episode: id, played: played)
                case .bookmark:
                    _ = try await pods.bookmark(note: "")
                    window?.toast("Bookmarked at \(Clock.text(player.position))")
                case .open: break
                case .transcript: openTranscript(id)
                }
            } catch { report(error) }
        }
    }

    private func perform(_ command: PlayerBar.Command) {
        guard let backend else { return }
        switch command {
        case .seek(let seconds):
            seek.request(seconds) { target throws(PlayerClient.Failure) in try await backend.player.setPosition(.seconds(target)) }
        case .volume(let level):
            volume.request(level) { target throws(PlayerClient.Failure) in try await backend.player.setVolume(target) }
        default:
            Task {
                do throws(PlayerClient.Failure) {
                    switch command {
                    case .playPause: try await backend.player.playPause()
                    case .skipBack: try await backend.pods.skip("back", seconds: nil)
                    case .skipForward: try await backend.pods.skip("forward", seconds: nil)
                    case .rate(let rate): try await backend.player.setRate(rate)
                    case .sleep(let timer):
                        try await backend.pods.setSleepTimer(timer)
                        readStatus()  // the timer is no MPRIS property: no PropertiesChanged tells of it
                    case .seek, .volume: break
                    }
                } catch { report(error) }
            }
        }
    }

    /// A failure in the listener's words, over the window (never a raw D-Bus error name).
    private func report(_ error: PlayerClient.Failure) {
        window?.toast(error.description)
    }
}

/// A slider dragged asks for many positions (or volumes); only the latest
/// is sent, one call at a time.
@MainActor
final class SeekCoalescer {
    private var target: Double?
    private var sending = false

    func request(_ seconds: Double, send: @escaping @Sendable (Double) async throws(PlayerClient.Failure) -> Void) {
        target = seconds
        guard !sending else { return }
        sending = true
        Task {
            while let target {
                self.target = nil
                try? await send(target)
            }
            sending = false
        }
    }
}
