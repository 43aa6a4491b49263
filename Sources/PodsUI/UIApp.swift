import Foundation
import PodsClient
import PodsDBus
import PodsFeedParser
import PodsProtocol
import PodsTerminal

/// `pods ui`: one thread owns the terminal and the model; it reads keys,
/// applies what came from the bus (`UIEvent`s, posted by tasks into an
/// inbox) and draws. Nothing on it waits on the bus: every request is a
/// task whose answer arrives as an event.
public final class UIApp {
    private let terminal: Terminal
    private let keys: KeyMap
    private var model = UIModel()
    private let backend: UIBackend
    private let inbox = UIInbox()
    private var dirty = true
    private var running = true
    /// The episode whose page is wanted, and since when (pages are asked for once the selection rests).
    private var wantedPage: (id: Int64, since: ContinuousClock.Instant)?
    private var askedPage: Int64?
    private var statusAsked = false
    /// The player changed while a status read was on its way: read it again when it comes.
    private var statusStale = false
    private var lastDraw = ContinuousClock.now
    private var follower: Task<Void, Never>?
    /// `G` on a list not read to its end: pages are read until it is, then the last row is selected.
    private var readingToEnd = false
    /// The transcript line the transcript layout last moved to.
    private var followedCue: Int?
    /// The picture on the screen (ncurses knows nothing of it), and whose artwork it is.
    private var placedPicture: (frame: PictureFrame, episodeID: Int64)?
    /// The episode whose artwork was asked for last.
    private var askedPicture: Int64?
    /// The one picture id the UI uses in the terminal.
    private static let pictureID: UInt32 = 1
    /// The artwork's side in pixels (the terminal scales it into its cells).
    private static let picturePixels = 256

    /// Takes over the terminal; `color` false is monochrome (`NO_COLOR`);
    /// `pictures`: the terminal shows kitty pictures (`TerminalPictures`).
    public init(player: PlayerClient, keys: KeyMap, color: Bool, pictures: Bool = false) throws(TerminalError) {
        terminal = try Terminal(color: color, resizeWake: inbox.signalFD)
        self.keys = keys
        model.showsPictures = pictures
        let inbox = self.inbox
        backend = UIBackend(player: player) { event in inbox.post(event) }
    }

    /// Runs until the listener quits; gives the terminal back whatever happens.
    public func run() {
        defer {
            removePicture()
            terminal.stop()
            follower?.cancel()
        }
        let backend = backend
        follower = Task { await backend.follow() }
        Task {
            let reached = await backend.reachPodsd()
            backend.post(.connected(reached))
        }
        loadAll()
        while running {
            let now = ContinuousClock.now
            if dirty || (model.status?.state == .playing && now - lastDraw >= .milliseconds(250)) { draw() }
            // Woken by a key, by an event from the bus (the inbox's pipe), or to move the position on.
            // (Without the pipe, a tenth of a second at most.)
            var wait: Int32 = model.status?.state == .playing ? 250 : -1
            if wantedPage != nil { wait = 70 }  // the details follow a selection that rests
            if inbox.wakeFD < 0 { wait = 100 }
            let key = terminal.readKey(milliseconds: wait, wake: inbox.wakeFD)
            if let key { handle(key) }
            drainInbox()
            askForPageWhenSettled()
            fetchAheadIfNeeded()
        }
    }

    private func draw() {
        let (rows, columns) = terminal.size
        terminal.draw(Screen.render(model, rows: rows, columns: columns, keys: keys))
        placePicture(rows: rows, columns: columns)
        dirty = false
        lastDraw = .now
    }

    /// Shows the artwork where the screen left room for it, once: it stays
    /// until the room or the episode changes.
    private func placePicture(rows: Int, columns: Int) {
        let frame = Screen.pictureFrame(model, rows: rows, columns: columns)
        let wanted = frame.flatMap { frame in model.picture.map { (frame: frame, picture: $0) } }
        if let placed = placedPicture, let wanted, placed.frame == wanted.frame, placed.episodeID == wanted.picture.episodeID { return }
        removePicture()
        guard let wanted else { return }
        terminal.writeThrough(TerminalPictures.show(png: wanted.picture.png, id: Self.pictureID, columns: wanted.frame.columns,
                                                    rows: wanted.frame.rows), row: wanted.frame.row, column: wanted.frame.column)
        placedPicture = (wanted.frame, wanted.picture.episodeID)
    }

    /// Takes the picture off the screen, if one is there.
    private func removePicture() {
        guard placedPicture != nil else { return }
        terminal.writeThrough(TerminalPictures.remove(id: Self.pictureID), row: 0, column: 0)
        placedPicture = nil
    }

    private var listHeight: Int { Screen.listHeight(rows: terminal.size.rows) }
    private var detailsHeight: Int { Screen.detailsHeight(model, rows: terminal.size.rows, columns: terminal.size.columns) }
    private var detailsWidth: Int { Screen.detailsWidth(model.layout, columns: terminal.size.columns) }

    // MARK: - Loading

    private func loadAll() {
        backend.loadPodcasts()
        askStatus()
        loadLayout(reload: true)
    }

    /// What the layout shows, when it has not been read (or `reload`).
    private func loadLayout(reload: Bool = false) {
        switch model.layout {
        case .podcasts:
            if let podcast = model.selectedPodcast, reload || model.episodesOf != podcast.id { loadEpisodes(of: podcast.id) }
        case .queue:
            if reload || model.queue.rows.isEmpty { model.queue.loading = true; backend.loadQueue() }
        case .downloads:
            if reload || model.downloads.rows.isEmpty { model.downloads.loading = true; backend.loadDownloads() }
        case .newest:
            if reload || model.newest.rows.isEmpty { model.newest.loading = true; backend.loadEpisodes(.newest, podcast: nil, after: LibraryPaging.start) }
        case .bookmarks:
            // Read as the layout opens, and again at each BookmarksChanged while it is open.
            model.bookmarks.loading = true
            backend.loadBookmarks()
        case .playlists:
            // Read as the layout opens, and again at each PlaylistsChanged while it is open
            // (what each holds changes with every episode played, read as it opens).
            model.playlists.loading = true
            backend.loadPlaylists()
        case .listening:
            model.listening.loading = true
            backend.loadListening()
        case .transcript:
            // The playing episode's, read each time the layout opens (it is fetched once, then kept).
            model.transcript.loading = true
            followedCue = nil
            backend.loadTranscript(of: model.status?.episodeId)
        case .search, .found:
            break
        }
    }

    private func loadEpisodes(of podcast: Int64) {
        if model.episodesOf != podcast { model.episodes = ListState(); model.episodesOf = podcast }
        model.episodes.loading = true
        backend.loadEpisodes(.episodes, podcast: podcast, after: LibraryPaging.start)
    }

    /// A paged list whose selection nears the end of what is loaded reads its next page.
    private func fetchAheadIfNeeded() {
        func ahead(_ key: WritableKeyPath<UIModel, ListState<EpisodeRow>>, _ list: UIEvent.List, podcast: Int64?) {
            let state = model[keyPath: key]
            guard !readingToEnd, !state.complete, !state.loading, let next = state.next,
                  state.selected + 2 * listHeight >= state.rows.count || !state.filter.isEmpty else { return }
            model[keyPath: key].loading = true
            backend.loadEpisodes(list, podcast: podcast, after: next)
        }
        switch model.layout {
        case .podcasts: if let podcast = model.episodesOf { ahead(\.episodes, .episodes, podcast: podcast) }
        case .newest: ahead(\.newest, .newest, podcast: nil)
        default: break
        }
    }

    /// The details follow the selection once it rests for a moment (a
    /// held arrow key does not ask for every page it passes).
    private func askForPageWhenSettled() {
        if model.layout == .search { return }
        guard let episode = model.selectedEpisode, episode.id > 0 else {  // (an empty playlist's row is no episode)
            if model.page != nil { model.show(nil, width: detailsWidth); dirty = true }
            return
        }
        if model.page?.episodeID == episode.id || askedPage == episode.id { return }
        if wantedPage?.id != episode.id { wantedPage = (episode.id, .now); return }
        guard let wanted = wantedPage, ContinuousClock.now - wanted.since >= .milliseconds(60) else { return }
        askedPage = episode.id
        wantedPage = nil
        backend.loadPage(episode.id)
    }

    // MARK: - Events

    /// Applies what came; the changes among it are read again once each, after the rest.
    private func drainInbox() {
        var reloads = UIReloads()
        for event in inbox.take() {
            if case .changed(let change) = event {
                dirty = true
                reloads.add(change, model: model)
            } else {
                apply(event)
            }
        }
        perform(reloads)
    }

    private func apply(_ event: UIEvent) {
        dirty = true
        switch event {
        case .podcasts(let rows):
            model.podcasts.replace(rows, id: \.id)
            model.podcasts.loading = false
            if model.layout == .podcasts { loadLayout() }
            model.podcastTitle = model.status?.podcastId.flatMap { id in model.podcasts.rows.first { $0.id == id }?.title }
        case .episodes(let list, let podcast, let rows, let next, let first):
            let key: WritableKeyPath<UIModel, ListState<EpisodeRow>> = list == .newest ? \.newest : \.episodes
            if list == .episodes && podcast != model.episodesOf { return }
            if !first && (readingToEnd || model[keyPath: key].complete) { return }  // the whole list is on its way, or here
            if first { model[keyPath: key].replace(rows, id: \.id) } else { model[keyPath: key].rows += rows }
            model[keyPath: key].next = next == LibraryPaging.start ? nil : next
            model[keyPath: key].complete = next == LibraryPaging.start
            model[keyPath: key].loading = false
            if readingToEnd && model[keyPath: key].complete {
                readingToEnd = false
                model.message = nil
                model.move(.bottom, height: listHeight)
            }
        case .queue(let rows):
            model.queue.replace(rows, id: \.id)
            model.queue.loading = false
        case .downloads(let rows):
            model.downloads.replace(rows, id: \.id)
            model.downloads.loading = false
        case .bookmarks(let rows):
            model.bookmarks.replace(rows) { $0.bookmark ?? $0.id }
            model.bookmarks.loading = false
        case .playlists(let rows):
            model.playlists.replace(rows) { Int64($0.playlist ?? "") ?? 0 }  // (the queue is 0)
            model.playlists.loading = false
        case .listening(let rows):
            model.listening.replace(rows, id: \.id)
            model.listening.loading = false
        case .transcript(let rows):
            model.transcript.replace(rows) { Int64($0.cueIndex ?? 0) }
            model.transcript.loading = false
            followCue()
        case .page(let page):
            askedPage = nil
            if model.selectedEpisode?.id == page.episodeID {
                model.show(page, width: detailsWidth)
                askForPicture(of: page.episodeID)
            }
        case .picture(let episode, let png):
            // Only a PNG goes to the terminal, whatever podsd sent.
            if let png, png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
                model.picture = EpisodePicture(episodeID: episode, png: png)
            } else if model.picture?.episodeID == episode {
                model.picture = nil
            }
        case .status(let status):
            statusAsked = false
            if statusStale { askStatus() }
            model.status = status
            model.statusAt = .now
            model.podcastTitle = status.podcastId.flatMap { id in model.podcasts.rows.first { $0.id == id }?.title }
            followCue()
        case .found(let term, let rows):
            model.findTerm = term
            model.found.replace([], id: { _ in 0 })
            model.found.rows = rows
            model.found.loading = false
            model.message = rows.isEmpty ? "nothing heard says \(term)" : nil
        case .results(let term, let rows):
            model.searchTerm = term
            model.results.replace([], id: { _ in 0 })
            model.results.rows = rows
            model.results.loading = false
            model.showResult(width: detailsWidth)
            model.message = rows.isEmpty ? "nothing found for \(term)" : nil
        case .message(let text):
            model.message = text
        case .connected(let connected):
            let was = model.connected
            model.connected = connected
            if connected && !was {
                backend.listingPeer.forget()
                model.message = nil
                loadAll()
            }
        case .refreshProgress(let done, let total):
            model.refreshing = done < total ? (done, total) : nil
        case .failed(let list):
            switch list {
            case .episodes: model.episodes.loading = false; readingToEnd = false
            case .newest: model.newest.loading = false; readingToEnd = false
            case .queue: model.queue.loading = false
            case .downloads: model.downloads.loading = false
            case .bookmarks: model.bookmarks.loading = false
            case .playlists: model.playlists.loading = false
            case .listening: model.listening.loading = false
            case .transcript: model.transcript.loading = false
            case .podcasts: model.podcasts.loading = false
            case .search: model.results.loading = false
            case .found: model.found.loading = false
            }
        case .changed(let change):
            changed(change)
        }
    }

    private func changed(_ change: UIEvent.Change) {
        var reloads = UIReloads()
        reloads.add(change, model: model)
        perform(reloads)
    }

    private func perform(_ reloads: UIReloads) {
        for read in reloads.reads {
            switch read {
            case .status: askStatus()
            case .podcasts: backend.loadPodcasts()
            case .queue: backend.loadQueue()
            case .downloads: backend.loadDownloads()
            case .bookmarks: backend.loadBookmarks()
            case .playlists: backend.loadPlaylists()
            case .newest: backend.loadEpisodes(.newest, podcast: nil, after: LibraryPaging.start)
            case .episodes(let podcast): backend.loadEpisodes(.episodes, podcast: podcast, after: LibraryPaging.start)
            case .page(let id): backend.loadPage(id)
            }
        }
    }

    /// Asks for the episode's artwork when the pane shows pictures and has another's.
    private func askForPicture(of episode: Int64) {
        guard model.showsPictures, model.picture?.episodeID != episode, askedPicture != episode else { return }
        askedPicture = episode
        backend.loadPicture(episode, pixels: Self.picturePixels)
    }

    /// Reads the player's status, once at a time; a change during a read asks for another after it.
    private func askStatus() {
        if statusAsked { statusStale = true; return }
        statusAsked = true
        statusStale = false
        backend.loadStatus()
    }

    // MARK: - Keys

    private func handle(_ key: Key) {
        dirty = true
        if key == .resize {
            removePicture()  // ncurses may clear the whole screen at the new size: the picture is shown again
            model.show(model.page, width: detailsWidth)
            if model.layout == .search { model.showResult(width: detailsWidth) }
            return
        }
        if model.showsHelp {
            switch keys.action(for: key) {
            case .down: model.helpTop += 1
            case .up: model.helpTop = max(0, model.helpTop - 1)
            case .pageDown: model.helpTop += max(1, terminal.size.rows - 6)
            case .pageUp: model.helpTop = max(0, model.helpTop - max(1, terminal.size.rows - 6))
            default: model.showsHelp = false
            }
            model.helpTop = min(model.helpTop, Screen.helpLines(keys: keys, width: min(terminal.size.columns - 4, 76)).count)
            return
        }
        if model.prompt != nil { return typed(key) }
        model.message = nil
        guard let action = keys.action(for: key) else { return }
        perform(action)
    }

    /// A key while the bottom line asks for something.
    private func typed(_ key: Key) {
        switch key {
        case .escape:
            if model.prompt == .filter { setFilter("") }
            model.prompt = nil
        case .enter:
            let input = model.input.trimmingCharacters(in: .whitespaces)
            switch model.prompt {
            case .subscribe: if !input.isEmpty { backend.subscribe(input) }
            case .search:
                if !input.isEmpty { model.results.loading = true; model.message = "searching for \(input)…"; backend.search(input) }
            case .find:
                if !input.isEmpty { model.found.loading = true; model.message = "finding \(input)…"; backend.find(input) }
            case .link: openLink(number: input)
            case .filter, nil: break
            }
            model.prompt = nil
        case .backspace:
            if !model.input.isEmpty { model.input.removeLast() }
            if model.prompt == .filter { setFilter(model.input) }
        case .character(let character):
            guard model.input.count < 500 else { return }
            model.input.append(character)
            if model.prompt == .filter { setFilter(model.input) }
        default:
            break
        }
    }

    /// Filters the list with the keys as the listener types.
    private func setFilter(_ text: String) {
        switch (model.layout, model.focus) {
        case (.podcasts, .list): model.podcasts.filter = text; model.podcasts.select(0, count: 1, height: listHeight)
        case (.search, _): model.results.filter = text; model.results.selected = 0; model.results.top = 0
        default:
            guard let key = model.shownEpisodes else { return }
            model[keyPath: key].filter = text
            model[keyPath: key].selected = 0
            model[keyPath: key].top = 0
        }
    }

    private func perform(_ action: UIAction) {
        let player = backend.player, library = backend.library, pods = backend.pods
        switch action {
        case .up, .down, .pageUp, .pageDown, .top, .bottom:
            let podcastBefore = model.selectedPodcast?.id
            model.move(action, height: model.focus == .details ? detailsHeight : listHeight)
            if model.layout == .podcasts, model.focus == .list, let podcast = model.selectedPodcast, podcast.id != podcastBefore {
                loadEpisodes(of: podcast.id)
            }
            if model.layout == .search { model.showResult(width: detailsWidth) }
            if action == .bottom { fetchAll() }
        case .focusLeft: model.moveFocus(by: -1)
        case .focusRight: model.moveFocus(by: 1)
        case .activate: activate()
        case .playPause: backend.command { () throws(PlayerClient.Failure) in try await player.playPause() }
        case .next: backend.command { () throws(PlayerClient.Failure) in try await player.next() }
        case .previous: backend.command { () throws(PlayerClient.Failure) in try await player.previous() }
        case .skipForward: backend.command { () throws(PlayerClient.Failure) in try await pods.skip("forward", seconds: nil) }
        case .skipBack: backend.command { () throws(PlayerClient.Failure) in try await pods.skip("back", seconds: nil) }
        case .faster, .slower:
            let rate = ((model.status?.rate ?? 1) + (action == .faster ? 0.1 : -0.1)) * 10
            let next = min(3, max(0.5, rate.rounded() / 10))
            backend.command("speed \(next)×") { () throws(PlayerClient.Failure) in try await player.setRate(next) }
        case .enqueue:
            guard let episode = model.selectedEpisode else { return }
            backend.command("queued: \(episode.title)") { () throws(PlayerClient.Failure) in try await library.enqueue([episode.id], at: nil) }
        case .download:
            guard let episode = model.selectedEpisode else { return }
            backend.command("downloading: \(episode.title)") { () throws(PlayerClient.Failure) in try await library.download(episode.id) }
        case .markPlayed:
            guard let episode = model.selectedEpisode else { return }
            let played = !episode.completed
            backend.command(played ? "marked played" : "marked unplayed") { () throws(PlayerClient.Failure) in
                try await library.mark(episode: episode.id, played: played)
            }
        case .openLink:
            guard let links = model.page?.links, !links.isEmpty else { return model.message = "this page has no links" }
            model.prompt = .link
            model.input = ""
        case .subscribe:
            model.prompt = model.layout == .search ? .search : model.layout == .found ? .find : .subscribe
            model.input = ""
        case .refresh:
            let podcast = model.layout == .podcasts ? model.selectedPodcast.map { String($0.id) } : nil
            model.message = "refreshing…"
            backend.command("refreshed") { () throws(PlayerClient.Failure) in _ = try await library.refresh(podcast: podcast) }
        case .filter:
            model.prompt = .filter
            model.input = ""
            setFilter("")
        case .help: model.showsHelp = true; model.helpTop = 0
        case .quit: running = false
        case .layoutPodcasts, .layoutQueue, .layoutDownloads, .layoutNewest, .layoutSearch, .layoutBookmarks, .layoutPlaylists,
             .layoutListening, .layoutTranscript, .layoutFound:
            let layout = UIModel.Layout(rawValue: (UIAction.allCases.firstIndex(of: action) ?? 0)
                - (UIAction.allCases.firstIndex(of: .layoutPodcasts) ?? 0) + 1) ?? .podcasts
            guard layout != model.layout else { return }
            model.layout = layout
            model.focus = .list
            model.prompt = nil
            wantedPage = nil
            loadLayout()
            if layout == .search {
                model.showResult(width: detailsWidth)
                if model.searchTerm.isEmpty { model.prompt = .search; model.input = "" }
            } else if layout == .found, model.findTerm.isEmpty {
                model.prompt = .find
                model.input = ""
            } else {
                model.page = nil
                model.details = ListState()
            }
        }
    }

    /// Enter: in the details, the line's link, chapter or subscription; on a
    /// podcast, its episodes; on an episode, play it; on a result, subscribe.
    private func activate() {
        let player = backend.player, library = backend.library, pods = backend.pods
        if model.focus == .details {
            guard model.details.rows.indices.contains(model.details.selected),
                  let action = model.details.rows[model.details.selected].action else { return }
            switch action {
            case .open(let url): backend.open(url)
            case .subscribe(let url): backend.subscribe(url)
            case .chapter(let index):
                guard let episode = model.page?.episodeID else { return }
                let playing = model.status?.episodeId == episode
                backend.command { () throws(PlayerClient.Failure) in
                    if !playing { try await library.play(episode: episode) }
                    try await pods.goToChapter(String(index))
                }
            case .playURL(let url):
                backend.command { () throws(PlayerClient.Failure) in try await player.open(uri: url) }
            case .playFrom(let seconds):
                guard let episode = model.page?.episodeID else { return }
                backend.command { () throws(PlayerClient.Failure) in try await library.play(episode: episode, at: seconds) }
            }
            return
        }
        switch model.layout {
        case .podcasts where model.focus == .list:
            model.moveFocus(by: 1)
        case .search:
            if let result = model.selectedResult { backend.subscribe(result.feedURL) }
        case .bookmarks:
            // From 5 s before the moment; the episode's resume position stays where it was.
            guard let bookmark = model.selectedEpisode?.bookmark else { return }
            backend.command { () throws(PlayerClient.Failure) in try await library.playBookmark(bookmark) }
        case .found:
            // Plays the episode from the moment found (a title or the notes: from where it was left).
            guard let found = model.selectedEpisode else { return }
            backend.command { () throws(PlayerClient.Failure) in
                if let start = found.cueStart { try await library.play(episode: found.id, at: start) } else { try await library.play(episode: found.id) }
            }
        case .transcript:
            // Goes to the line's start (a Seeked follows).
            guard let start = MediaSeconds.checked(model.selectedEpisode?.cueStart) else { return }
            backend.command { () throws(PlayerClient.Failure) in try await player.setPosition(.milliseconds(Int64(start * 1000))) }
        case .playlists:
            // Plays it from its first episode; it plays next from then on (the list shows which).
            guard let playlist = model.selectedEpisode?.playlist else { return }
            backend.command { () throws(PlayerClient.Failure) in try await library.playPlaylist(playlist) }
            backend.loadPlaylists()
        default:
            guard let episode = model.selectedEpisode else { return }
            backend.command { () throws(PlayerClient.Failure) in
                // On the MPRIS name, like a media key's later Pause: the two keep their order.
                try await player.open(uri: "\(MPRIS.episodeScheme):episode/\(episode.id)")
            }
        }
    }

    /// In the transcript layout, the selection follows the line playing
    /// (each time it changes: between changes the listener may look around).
    private func followCue() {
        guard model.layout == .transcript, let index = model.status?.cue?.index, index != followedCue,
              let row = model.transcript.rows.firstIndex(where: { $0.cueIndex == index }) else { return }
        followedCue = index
        model.transcript.select(row, count: model.transcript.rows.count, height: listHeight)
    }

    /// Opens the page's link numbered `number` (as the page lists them, from 1).
    private func openLink(number: String) {
        guard let links = model.page?.links, let index = Int(number), links.indices.contains(index - 1) else {
            return model.message = "! no link \(number.prefix(10)) on this page"
        }
        backend.open(links[index - 1].url)
    }

    /// `G` on a paged list: the pages not read yet are read one after another.
    private func fetchAll() {
        guard let key = model.shownEpisodes, !model[keyPath: key].complete, !readingToEnd else { return }
        readingToEnd = true
        model.message = "reading the rest of the list…"
        model[keyPath: key].loading = true
        switch model.layout {
        case .podcasts: backend.loadAllEpisodes(.episodes, podcast: model.episodesOf)
        case .newest: backend.loadAllEpisodes(.newest, podcast: nil)
        default: break
        }
    }
}
