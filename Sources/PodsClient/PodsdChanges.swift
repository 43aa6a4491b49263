import PodsDBus
import PodsProtocol

/// What podsd's signals say changed, for a client that shows it
/// (`pods ui`, the window): each is a reason to read that part again.
public enum PodsdChange: Sendable, Equatable {
    /// MPRIS `PropertiesChanged` or `Seeked`.
    case player
    case podcasts, queue, downloads, bookmarks, playlists
    case episodes(podcast: Int64)
    /// One episode's progress, played state or download.
    case episode(Int64)
    case refreshProgress(done: Int, total: Int)
    /// podsd took or left its MPRIS name.
    case podsd(running: Bool)
}

extension PlayerClient {
    /// Follows podsd's signals and its comings and goings until cancelled;
    /// `post` is called from the connection's tasks, in the order each
    /// signal arrives.
    public func followChanges(_ post: @escaping @Sendable (PodsdChange) -> Void) async {
        let connection = self.connection
        await withDiscardingTaskGroup { group in
            group.addTask {
                // Each from podsd only: every MPRIS player signals at the same path.
                guard let changes = try? await connection.signals(matching: DBusSignalMatch(
                    sender: MPRIS.busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
                else { return }
                for await _ in changes { post(.player) }
            }
            group.addTask {
                guard let seeks = try? await connection.signals(matching: DBusSignalMatch(
                    sender: MPRIS.busName, path: MPRIS.objectPath, interface: MPRIS.playerInterface, member: MPRIS.seeked.name)) else { return }
                for await _ in seeks { post(.player) }
            }
            group.addTask {
                guard let signals = try? await connection.signals(matching: DBusSignalMatch(sender: PodsBus.name, interface: LibraryNames.interface))
                else { return }
                for await signal in signals {
                    let id = signal.arguments.first?.int64Value
                    switch signal.member {
                    case LibrarySignal.podcastsChanged.name: post(.podcasts)
                    case LibrarySignal.episodesChanged.name: if let id { post(.episodes(podcast: id)) }
                    case LibrarySignal.episodeStatusChanged.name: if let id { post(.episode(id)) }
                    case LibrarySignal.queueChanged.name: post(.queue)
                    case LibrarySignal.downloadsChanged.name: post(.downloads)
                    case LibrarySignal.bookmarksChanged.name: post(.bookmarks)
                    case LibrarySignal.playlistsChanged.name: post(.playlists)
                    case LibrarySignal.refreshProgress.name:
                        let done = Int(signal.arguments.first?.int64Value ?? 0), total = Int(signal.arguments.last?.int64Value ?? 0)
                        post(.refreshProgress(done: done, total: total))
                    default: break
                    }
                }
            }
            group.addTask {
                guard let owners = try? await connection.signals(matching: DBusSignalMatch(
                    sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged")) else { return }
                for await change in owners where change.arguments.first?.stringValue == MPRIS.busName {
                    post(.podsd(running: !(change.arguments.last?.stringValue ?? "").isEmpty))
                }
            }
        }
    }

    /// Starts podsd if it is not running (D-Bus activation) and says whether it answers.
    public func reachPodsd() async -> Bool {
        (try? await connection.call(destination: MPRIS.busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Peer",
                                    member: "Ping", timeout: .seconds(25))) != nil
    }

    /// Whether the library answers too (`org.pods.Pods`): behind a sandbox's
    /// MPRIS-only grant podsd plays but its library is out of reach.
    public func reachLibrary() async -> Bool {
        (try? await connection.call(destination: PodsBus.name, path: LibraryNames.objectPath, interface: "org.freedesktop.DBus.Peer",
                                    member: "Ping", timeout: .seconds(10))) != nil
    }
}
