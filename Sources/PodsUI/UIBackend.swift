import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import Synchronization

/// podsd as `pods ui` talks to it: the typed library API, `org.pods.Player1`
/// and MPRIS, each answer posted to the UI's thread as a `UIEvent`.
struct UIBackend: Sendable {
    let player: PlayerClient
    let post: @Sendable (UIEvent) -> Void
    /// Where podsd pages listings, asked once per podsd (a restart forgets it).
    let listingPeer = ListingPeer()
    var library: LibraryClient { LibraryClient(player) }
    var pods: PodsPlayerClient { PodsPlayerClient(player) }

    /// Episodes asked for at a time: one screen of a tall terminal and more.
    static let pageSize = 200

    // MARK: - Reading

    func loadPodcasts() {
        run(.podcasts) { () throws(PlayerClient.Failure) in post(.podcasts(try await library.podcastRows())) }
    }

    func loadEpisodes(_ list: UIEvent.List, podcast: Int64?, after cursor: String) {
        run(list) { () throws(PlayerClient.Failure) in
            let peer = await listingPeer.name { await library.listingConnection() }
            let page = try await library.episodePage(podcast: podcast, after: cursor, count: Self.pageSize, at: peer)
            post(.episodes(list, podcast: podcast, rows: page.items.compactMap(Items.episode), next: page.next,
                           first: cursor == LibraryPaging.start))
        }
    }

    /// The whole list at once, streamed as `pods episodes` reads it (off the
    /// bus, a pipe podsd writes its pages into): for `G`.
    func loadAllEpisodes(_ list: UIEvent.List, podcast: Int64?) {
        run(list) { () throws(PlayerClient.Failure) in
            let rows = try await library.episodeRows(podcast: podcast)
            post(.episodes(list, podcast: podcast, rows: rows, next: LibraryPaging.start, first: true))
        }
    }

    func loadQueue() {
        run(.queue) { () throws(PlayerClient.Failure) in
            var rows: [EpisodeRow] = []
            try await library.queue { page in rows += page.compactMap(Items.episode) }
            post(.queue(rows))
        }
    }

    /// Every bookmark, oldest first (few: one a key press).
    func loadBookmarks() {
        run(.bookmarks) { () throws(PlayerClient.Failure) in
            var rows: [EpisodeRow] = []
            try await library.bookmarks(episode: nil) { rows += $0.compactMap(Items.bookmark) }
            post(.bookmarks(rows))
        }
    }

    /// The queue and every playlist, each row on its first episode (what its details show).
    func loadPlaylists() {
        run(.playlists) { () throws(PlayerClient.Failure) in
            var rows: [EpisodeRow] = []
            var queued = 0, firstQueued: Int64 = 0
            try await library.playlistEpisodes("queue", limit: LibraryPaging.maxItems) { page in
                if firstQueued == 0 { firstQueued = page.first.flatMap { Items.fields($0)["id"]?.int64Value } ?? 0 }
                queued += page.count
            }
            let all = try await library.playlists().map(Items.fields)
            let queueActive = !all.contains { $0["active"]?.boolValue == true }
            rows.append(Items.playlistRow(name: "Up Next", count: queued, active: queueActive, play: "queue", first: firstQueued))
            for playlist in all {
                let id = String(playlist["id"]?.int64Value ?? 0)
                var first: Int64 = 0
                try await library.playlistEpisodes(id, limit: 1) { page in
                    if first == 0 { first = page.first.flatMap { Items.fields($0)["id"]?.int64Value } ?? 0 }
                }
                rows.append(Items.playlistRow(name: playlist["name"]?.stringValue ?? "", count: Int(playlist["count"]?.int64Value ?? 0),
                                              active: playlist["active"]?.boolValue == true, play: id, first: first))
            }
            post(.playlists(rows))
        }
    }

    /// The listening log's sums: all of it, then each podcast (most heard first), then each week (latest first).
    func loadListening() {
        run(.listening) { () throws(PlayerClient.Failure) in
            post(.listening(Items.listeningRows(Items.fields(try await library.listeningStats(since: 0)))))
        }
    }

    /// Episode `episode`'s transcript, a line a row (no transcript: none).
    func loadTranscript(of episode: Int64?) {
        run(.transcript) { () throws(PlayerClient.Failure) in
            guard let episode else { return post(.transcript([])) }
            var rows: [EpisodeRow] = []
            try await library.transcript(episode: episode) { page in
                for cue in page where rows.count < 100_000 { rows.append(Items.transcriptRow(cue, episode: episode, number: rows.count + 1)) }
            }
            post(.transcript(rows))
        }
    }

    func loadDownloads() {
        run(.downloads) { () throws(PlayerClient.Failure) in post(.downloads(try await library.downloads().compactMap(Items.download))) }
    }

    func loadPage(_ episode: Int64) {
        run(nil) { () throws(PlayerClient.Failure) in
            if let page = try await player.episodeDetails(episode) { post(.page(page)) }
        }
    }

    /// The episode's artwork as a PNG (podsd renders it); nil in the event when it has none.
    func loadPicture(_ episode: Int64, pixels: Int) {
        Task {
            let png = try? await library.artworkPNG(episode: episode, pixels: pixels, maximumBytes: 2 << 20)
            post(.picture(episodeID: episode, png: png))
        }
    }

    func loadStatus() {
        run(nil, quiet: true) { () throws(PlayerClient.Failure) in
            var status = try await player.status()
            if let extras = try? await pods.extras() { status.add(extras: extras) }
            post(.status(status))
        }
    }

    func search(_ term: String) {
        run(.search) { () throws(PlayerClient.Failure) in
            post(.results(term: term, try await library.search(term, limit: 50).compactMap(Items.search)))
        }
    }

    func find(_ term: String) {
        run(.found) { () throws(PlayerClient.Failure) in
            post(.found(term: term, try await library.find(term, limit: 100).compactMap(Items.found)))
        }
    }

    // MARK: - Doing

    /// Runs a command; its failure is the message line.
    func command(_ done: String? = nil, _ body: @escaping @Sendable () async throws(PlayerClient.Failure) -> Void) {
        run(nil) { () throws(PlayerClient.Failure) in
            try await body()
            if let done { post(.message(done)) }
        }
    }

    func subscribe(_ url: String) {
        command { () throws(PlayerClient.Failure) in
            post(.message("subscribing to \(url)…"))
            let podcast = try await library.subscribe(url)
            post(.message("subscribed to \(Items.fields(podcast)["title"]?.stringValue ?? url)"))
        }
    }

    /// Opens a link in the desktop's browser (`xdg-open`, detached: it outlives the UI).
    func open(_ url: String) {
        guard EpisodeDetails.isOpenable(url) else {
            return post(.message("! \(url.prefix(60)) is not a web link"))
        }
        if Launcher.detached(["xdg-open", url]) {
            post(.message("opening \(url)"))
        } else {
            post(.message("! xdg-open could not be started (is xdg-utils installed?)"))
        }
    }

    // MARK: - Signals

    /// Follows podsd's signals and its comings and goings until cancelled.
    func follow() async {
        await player.followChanges { change in
            switch change {
            case .player: post(.changed(.player))
            case .podcasts: post(.changed(.podcasts))
            case .episodes(let podcast): post(.changed(.episodes(podcast: podcast)))
            case .episode(let id): post(.changed(.episode(id)))
            case .queue: post(.changed(.queue))
            case .downloads: post(.changed(.downloads))
            case .bookmarks: post(.changed(.bookmarks))
            case .playlists: post(.changed(.playlists))
            case .refreshProgress(let done, let total): post(.refreshProgress(done: done, total: total))
            case .podsd(let running): post(.connected(running))
            }
        }
    }

    func reachPodsd() async -> Bool { await player.reachPodsd() }

    // MARK: -

    private func run(_ list: UIEvent.List?, quiet: Bool = false,
                     _ body: @escaping @Sendable () async throws(PlayerClient.Failure) -> Void) {
        Task {
            do throws(PlayerClient.Failure) { try await body() } catch {
                if let list { post(.failed(list)) }
                if !quiet { post(.message("! " + error.description)) }
            }
        }
    }
}

/// podsd's listing connection's unique name, kept between pages.
final class ListingPeer: Sendable {
    private let known = Mutex<String??>(nil)

    func name(_ ask: () async -> String?) async -> String? {
        if let kept = known.withLock({ $0 }) { return kept }
        let asked = await ask()
        known.withLock { $0 = .some(asked) }
        return asked
    }

    /// podsd restarted: its listing connection has another name.
    func forget() { known.withLock { $0 = nil } }
}
