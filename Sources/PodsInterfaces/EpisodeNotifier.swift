import Logging
import PodsCache
import PodsDBus
import PodsFeedParser
import PodsLibrary
import PodsSession
import Synchronization

/// Announces the episodes a refresh (in the background, or asked for)
/// found, through the desktop's notification server
/// (`org.freedesktop.Notifications`): one notification per podcast, or one
/// summary when many podcasts changed, with the podcast's cached artwork
/// and a "Play" action that plays the episode. Without a notification
/// server on the bus nothing fails: that is logged once.
package final class EpisodeNotifier: NewEpisodeAnnouncer, BookmarkAnnouncer {
    package static let service = "org.freedesktop.Notifications"
    package static let path = DBusObjectPath(validLiteral: "/org/freedesktop/Notifications")
    /// More podcasts with news than this get one summary instead.
    package static let mostNotifications = 3
    /// Notifications whose Play action is remembered at most.
    package static let remembered = 64

    private let connection: DBusConnection
    private let player: Playback
    private let logger: Logger
    /// Each notification shown: its id, its episode, and the unique name of the server that showed it.
    private let actions = Mutex<[(notification: UInt32, episode: Int64, server: String)]>([])
    private let toldNoServer = Mutex(false)
    private let listening = Mutex<(task: Task<Void, Never>?, finished: Bool)>((nil, false))

    private let library: Library
    private let preferences: PreferenceStore
    private let artwork: ArtworkCache?

    /// `player` plays what a notification's Play action names.
    package init(connection: DBusConnection, player: Playback, library: Library, preferences: PreferenceStore,
                 artwork: ArtworkCache?, logger: Logger) {
        self.connection = connection
        self.player = player
        self.library = library
        self.preferences = preferences
        self.artwork = artwork
        self.logger = logger
    }

    /// Plays the episode of each "Play" clicked, until `finish()`.
    package func run() async {
        guard let clicks = try? await connection.signals(matching: DBusSignalMatch(
            interface: Self.service, member: "ActionInvoked")) else { return }
        let task = Task { await follow(clicks) }
        let finished = listening.withLock { listening in
            listening.task = task
            return listening.finished
        }
        if finished { task.cancel() }
        await task.value
    }

    package func finish() {
        listening.withLock { listening in
            listening.finished = true
            listening.task?.cancel()
        }
    }

    /// Only the notification server that showed a notification speaks for its
    /// clicks: any other client on the bus can send an `ActionInvoked` signal,
    /// but not under that server's unique name (the bus stamps the sender).
    private func follow(_ clicks: AsyncStream<DBusSignal>) async {
        for await click in clicks {
            guard click.path == Self.path.rawValue, let id = click.arguments.first?.int64Value.map(UInt32.init(truncatingIfNeeded:)),
                  click.arguments.last?.stringValue == "play" || click.arguments.last?.stringValue == "default",
                  let episode = actions.withLock({ actions in
                      actions.first { $0.notification == id && $0.server == click.sender }?.episode
                  }) else { continue }
            do { try await player.play(episodeID: episode) } catch { logger.error("could not play episode \(episode): \(error.message)") }
        }
    }

    /// The unique name that owns the notification service now (nil: none).
    private func serverName() async -> String? {
        let reply = try? await connection.call(
            destination: "org.freedesktop.DBus", path: DBusObjectPath(validLiteral: "/org/freedesktop/DBus"), interface: "org.freedesktop.DBus",
            member: "GetNameOwner", arguments: [.string(Self.service)], timeout: .seconds(5))
        return reply?.first?.stringValue
    }

    /// Tells of the episodes a refresh added (podcasts with `added` > 0).
    package func announce(_ summaries: [RefreshSummary]) async {
        let library = library
        guard preferences.value(.notify, podcast: nil).boolValue ?? true else { return }
        let changed = summaries.filter { $0.added > 0 }
        guard !changed.isEmpty else { return }
        var newest: [(summary: RefreshSummary, episode: LibraryEpisode)] = []
        for summary in changed {
            let episodes = (try? await LibraryWork.lane.run { () throws(LibraryError) in
                try library.episodes(podcastId: summary.podcastId, limit: 1)
            }) ?? []
            if let episode = episodes.first { newest.append((summary, episode)) }
        }
        if newest.count > Self.mostNotifications {
            let total = changed.reduce(0) { $0 + $1.added }
            let names = newest.prefix(4).map(\.summary.title).joined(separator: ", ") + (newest.count > 4 ? "…" : "")
            guard let latest = newest.max(by: { ($0.episode.episode.published ?? .distantPast) < ($1.episode.episode.published ?? .distantPast) })
            else { return }
            await notify(summary: "\(total) new episodes in \(newest.count) podcasts", body: names, icon: "", play: latest.episode.id)
            return
        }
        for (summary, episode) in newest {
            let art = episode.podcastArtworkURL ?? episode.episode.artworkURL
            let icon = if let art, let artwork = artwork { await artwork.cachedURI(for: art, policy: episode.urlPolicy) ?? "" } else { "" }
            let more = summary.added > 1 ? " (and \(summary.added - 1) more)" : ""
            await notify(summary: summary.title, body: "New: \(episode.episode.title)\(more)", icon: icon, play: episode.id)
        }
    }

    /// Tells that a bookmark was taken: where, in what, and its note.
    package func announce(_ bookmark: Bookmark) async {
        let body = bookmark.note.isEmpty ? bookmark.episodeTitle : "\(bookmark.episodeTitle): \(bookmark.note)"
        await notify(summary: "Bookmark at \(MediaSeconds.clock(bookmark.position))", body: body, icon: "", play: nil)
    }

    /// A body as text: servers that take `body-markup` read `&`, `<` and `>`
    /// as markup, and a feed's title or a bus client's note could break the
    /// notification or add links and images (REVIEW-4, N24). GNOME Shell,
    /// Plasma, dunst and mako all read markup.
    static func markupEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// `play` nil: a notification that only tells (a bookmark's: transient, no action).
    private func notify(summary: String, body: String, icon: String, play episode: Int64?) async {
        var hints: [String: DBusValue] = ["desktop-entry": .string("pods"),
                                          "category": .string(episode == nil ? "x-pods.bookmark" : "x-pods.new-episode")]
        if !icon.isEmpty { hints["image-path"] = .string(icon) }
        if episode == nil { hints["transient"] = .bool(true) }
        do {
            let reply = try await connection.call(
                destination: Self.service, path: Self.path, interface: Self.service, member: "Notify",
                arguments: [.string("Pods"), .uint32(0), .string(icon.isEmpty ? "pods" : icon), .string(summary), .string(Self.markupEscaped(body)),
                            .stringArray(episode == nil ? [] : ["play", "Play", "default", "Play"]), .variantDictionary(hints), .int32(-1)],
                timeout: .seconds(5))
            guard let episode, let id = reply.first?.int64Value.map(UInt32.init(truncatingIfNeeded:)), let server = await serverName()
            else { return }
            actions.withLock { actions in
                actions.append((id, episode, server))
                if actions.count > Self.remembered { actions.removeFirst() }
            }
        } catch {
            let first = toldNoServer.withLock { told in defer { told = true }; return !told }
            if first { logger.info("no desktop notifications: \(error.message); new episodes and bookmarks are not announced") }
        }
    }
}
