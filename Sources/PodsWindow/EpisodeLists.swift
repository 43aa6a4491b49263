import Foundation
import PodsClient
import PodsGtk

/// Up Next, Downloads and Bookmarks: each list read from podsd at the
/// start and again whenever podsd announces its change (`QueueChanged`,
/// `DownloadsChanged`, `BookmarksChanged`), and each row's buttons acting
/// on podsd. The queue is reordered with Move up and Move down (buttons,
/// so the keyboard reaches them as the mouse does).
@MainActor
final class EpisodeLists {
    private(set) var upNext: EpisodeListPage!
    private(set) var downloads: EpisodeListPage!
    private(set) var bookmarks: EpisodeListPage!
    private let reads = (upNext: SerialRead(), downloads: SerialRead(), bookmarks: SerialRead())
    private let report: @MainActor (PlayerClient.Failure) -> Void
    var backend: WindowBackend? { didSet { reloadAll() } }

    init(report: @escaping @MainActor (PlayerClient.Failure) -> Void) {
        self.report = report
        upNext = EpisodeListPage(
            name: "Up Next", emptyIcon: "view-list-symbolic", emptyTitle: "Nothing up next",
            emptyDescription: "Episodes added to Up Next play one after another.",
            actions: [
                .init(icon: "media-playback-start-symbolic", verb: "Play") { [unowned self] in self.play($0.row.id) },
                .init(icon: "go-up-symbolic", name: { "Move \($0) up" }) { [unowned self] in self.move($0.row.id, by: -1) },
                .init(icon: "go-down-symbolic", name: { "Move \($0) down" }) { [unowned self] in self.move($0.row.id, by: 1) },
                .init(icon: "list-remove-symbolic", name: { "Remove \($0) from Up Next" }) { [unowned self] entry in
                    self.act { library throws(PlayerClient.Failure) in try await library.dequeue(entry.row.id) }
                },
            ])
        downloads = EpisodeListPage(
            name: "Downloads", emptyIcon: "folder-download-symbolic", emptyTitle: "No downloads",
            emptyDescription: "Episodes downloaded from their pages play without the network.",
            actions: [
                .init(icon: "media-playback-start-symbolic", verb: "Play") { [unowned self] in self.play($0.row.id) },
                .init(icon: "user-trash-symbolic", name: { "Delete the download of \($0)" }) { [unowned self] entry in
                    self.act { library throws(PlayerClient.Failure) in try await library.deleteDownload(entry.row.id) }
                },
            ])
        bookmarks = EpisodeListPage(
            name: "Bookmarks", emptyIcon: "user-bookmarks-symbolic", emptyTitle: "No bookmarks",
            emptyDescription: "Bookmark a moment from the episode’s page while it plays.",
            actions: [
                .init(icon: "media-playback-start-symbolic", name: { "Play from the bookmark \($0)" }) { [unowned self] entry in
                    guard let bookmark = entry.row.bookmark else { return }
                    self.act { library throws(PlayerClient.Failure) in try await library.playBookmark(bookmark) }
                },
                .init(icon: "user-trash-symbolic", name: { "Delete the bookmark \($0)" }) { [unowned self] entry in
                    guard let bookmark = entry.row.bookmark else { return }
                    self.act { library throws(PlayerClient.Failure) in try await library.deleteBookmark(bookmark) }
                },
            ])
    }

    /// Reads again what `change` says is out of date.
    func handle(_ change: PodsdChange) {
        switch change {
        case .queue: reloadUpNext()
        case .downloads: reloadDownloads()
        case .bookmarks: reloadBookmarks()
        case .podsd(true): reloadAll()
        default: break
        }
    }

    func reloadAll() {
        reloadUpNext()
        reloadDownloads()
        reloadBookmarks()
    }

    private func reloadUpNext() {
        read(reads.upNext, into: upNext) { library throws(PlayerClient.Failure) in
            var entries: [EpisodeListPage.Entry] = []
            try await library.queue { page in
                entries += page.compactMap(Items.episode).map { .init(row: $0, detail: [$0.podcastTitle, $0.facts].joined(separator: " · ")) }
            }
            return entries
        }
    }

    private func reloadDownloads() {
        read(reads.downloads, into: downloads) { library throws(PlayerClient.Failure) in
            try await library.downloads().compactMap { item -> EpisodeListPage.Entry? in
                guard let row = Items.download(item) else { return nil }
                return .init(row: row, detail: Items.downloadDetail(item))
            }
        }
    }

    private func reloadBookmarks() {
        read(reads.bookmarks, into: bookmarks) { library throws(PlayerClient.Failure) in
            var entries: [EpisodeListPage.Entry] = []
            try await library.bookmarks(episode: nil) { page in
                entries += page.compactMap(Items.bookmark).map { .init(row: $0, detail: $0.podcastTitle) }
            }
            return entries
        }
    }

    private func read(_ serial: SerialRead, into page: EpisodeListPage,
                      _ load: @escaping @Sendable (LibraryClient) async throws(PlayerClient.Failure) -> [EpisodeListPage.Entry]) {
        guard let library = backend?.library else { return }
        serial.request { [weak self] in
            do throws(PlayerClient.Failure) { page.show(try await load(library)) } catch { self?.report(error) }
        }
    }

    private func play(_ episode: Int64) { act { library throws(PlayerClient.Failure) in try await library.play(episode: episode) } }

    /// One place up or down the queue.
    private func move(_ episode: Int64, by offset: Int) {
        guard let index = upNext.index(of: episode) else { return }
        let target = index + offset
        guard upNext.entries.indices.contains(target) else { return }
        act { library throws(PlayerClient.Failure) in try await library.move(episode, to: target) }
    }

    private func act(_ body: @escaping @Sendable (LibraryClient) async throws(PlayerClient.Failure) -> Void) {
        guard let library = backend?.library else { return }
        Task { do throws(PlayerClient.Failure) { try await body(library) } catch { report(error) } }
    }
}
