import ArgumentParser
import PodsProtocol

@main
struct Pods: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pods",
        abstract: "Control the Pods podcast player (podsd) over D-Bus.",
        version: PodsVersion.current,
        groupedSubcommands: [
            CommandGroup(name: "Playback", subcommands: [
                UI.self,
                Play.self, Pause.self, Toggle.self, Stop.self, Next.self, Previous.self, Forward.self, Back.self, Seek.self,
                Chapters.self, ChapterJump.self, TranscriptCommand.self, Sleep.self, Speed.self, Volume.self, Status.self,
                BookmarkCommand.self, BookmarksCommand.self, Stats.self,
            ]),
            CommandGroup(name: "Library", subcommands: [
                Search.self, Find.self, Subscribe.self, Unsubscribe.self, Podcasts.self, PodcastPage.self, Episodes.self, Show.self, ShowEpisode.self, Refresh.self, Mark.self,
            ]),
            CommandGroup(name: "Queue and downloads", subcommands: [
                Queue.self, Playlists.self, Playlist.self, Download.self, Downloads.self, DeleteDownload.self, AutoDownload.self, Storage.self,
            ]),
            CommandGroup(name: "Sync and settings", subcommands: [Sync.self, Config.self]),
            CommandGroup(name: "Tools", subcommands: [Import.self, Export.self, Inspect.self]),
        ])
}
