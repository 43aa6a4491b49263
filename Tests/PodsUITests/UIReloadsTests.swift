import PodsClient
import PodsUI
import Testing

/// `pods ui` reads a list again once per turn however many signals ask
/// (HOUSE-2 §3.2: a 200-feed refresh sent 200 `EpisodesChanged`, and each
/// read the newest list's first page again).
@Suite struct UIReloadsTests {
    private static func row(_ id: Int64, podcast: Int64) -> EpisodeRow {
        EpisodeRow(id: id, podcastID: podcast, podcastTitle: "Show", title: "Episode \(id)", published: nil, duration: nil,
                   position: 0, completed: false, downloaded: nil)
    }

    @Test func aBurstOfChangesReadsEachListOnce() {
        var model = UIModel()
        model.newest.rows = (1...5).map { Self.row($0, podcast: 1) }
        model.episodesOf = 7
        model.episodes.rows = [Self.row(70, podcast: 7)]
        var reloads = UIReloads()
        for podcast in Int64(1)...200 { reloads.add(.episodes(podcast: podcast), model: model) }
        for _ in 0..<50 { reloads.add(.podcasts, model: model) }
        reloads.add(.episode(70), model: model)
        reloads.add(.player, model: model)
        reloads.add(.downloads, model: model)
        #expect(reloads.reads == [.newest, .episodes(podcast: 7), .podcasts, .status])
        var many = UIReloads()
        many.add(.podcasts, model: model)  // what podsd sends for more changes than a batch names
        #expect(many.reads == [.podcasts, .episodes(podcast: 7), .newest])
    }

    @Test func onlyWhatTheScreenShowsIsRead() {
        var model = UIModel()
        var reloads = UIReloads()
        reloads.add(.episodes(podcast: 3), model: model)  // no list of it, no newest rows
        reloads.add(.queue, model: model)
        reloads.add(.episode(9), model: model)
        #expect(reloads.reads.isEmpty)
        model.queue.rows = [Self.row(9, podcast: 3)]
        reloads.add(.episode(9), model: model)
        #expect(reloads.reads == [.queue])
    }

    /// Bookmarks and playlists are read again at their signals only while their layout is open (it reads them as it opens).
    @Test func bookmarksAndPlaylistsFollowTheirSignalsWhileOpen() {
        var model = UIModel()
        var closed = UIReloads()
        closed.add(.bookmarks, model: model)
        closed.add(.playlists, model: model)
        #expect(closed.reads.isEmpty)
        model.layout = .bookmarks
        var open = UIReloads()
        for _ in 0..<3 { open.add(.bookmarks, model: model) }
        open.add(.playlists, model: model)
        #expect(open.reads == [.bookmarks])
        model.layout = .playlists
        open.add(.playlists, model: model)
        #expect(open.reads == [.bookmarks, .playlists])
    }
}
