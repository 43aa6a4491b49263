import ArgumentParser

@main
struct Pods: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pods",
        abstract: "Control the Pods podcast player (podsd) over D-Bus.",
        subcommands: [
            Play.self, Pause.self, Toggle.self, Stop.self, Next.self, Previous.self, Forward.self, Back.self, Seek.self,
            Chapters.self, ChapterJump.self, Sleep.self, Speed.self, Volume.self, Status.self,
            Search.self, Subscribe.self, Unsubscribe.self, Podcasts.self, Episodes.self, Show.self, ShowEpisode.self, Refresh.self, Mark.self, Queue.self,
            Download.self, Downloads.self, DeleteDownload.self, AutoDownload.self, Storage.self,
            Sync.self, Config.self, Import.self, Export.self, Inspect.self,
        ])
}
