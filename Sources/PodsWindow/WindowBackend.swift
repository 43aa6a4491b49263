import PodsClient

/// podsd as the window talks to it: calls run off the main thread, and
/// what they bring back is handed to `WindowApp` on the main actor (the
/// GLib loop serves it). The window never opens the library's files.
struct WindowBackend: Sendable {
    let player: PlayerClient
    var library: LibraryClient { LibraryClient(player) }
    var pods: PodsPlayerClient { PodsPlayerClient(player) }
}
