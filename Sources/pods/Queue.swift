import ArgumentParser
import PodsClient
import PodsProtocol

struct Queue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or edit the queue (what plays next).",
        subcommands: [List.self, Add.self, Remove.self, Clear.self, Move.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the queue, next first.")
        @OptionGroup var format: OutputFormat

        func run() async throws {
            var output = ItemOutput.array()
            var position = 0
            try await withLibrary { (library) throws(PlayerClient.Failure) in
                try await library.queue { page in
                    if format.json { return output.page(page, LibraryItems.episodeSummary) }
                    for episode in page {
                        position += 1
                        print("\(position). \(episode["id"].int)  \(episode["title"].text)")
                    }
                }
                if format.json { return output.finish() }
                try await Queue.sayWhatPlaysNext(library)
            }
        }
    }

    /// While a playlist plays next, the queue waits: said wherever the queue is shown or changed
    /// (REVIEW-4, N20: a desktop's media menu made a playlist active, and queue edits changed nothing heard).
    static func sayWhatPlaysNext(_ library: LibraryClient) async throws(PlayerClient.Failure) {
        guard let playlist = try await library.player.activePlaylistOtherThanTheQueue() else { return }
        print("The playlist \(playlist) plays next, not the queue: `pods playlist play queue` makes the queue what plays next again.")
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add episodes at the end (or at --at).")
        @Argument(help: "Episode ids.") var episodes: [Int64]
        @Option(help: "Position, 1 being next.") var at: Int?

        func run() async throws {
            try await withLibrary { (library) throws(PlayerClient.Failure) in
                try await library.enqueue(episodes, at: at.map { $0 - 1 })
                try await Queue.sayWhatPlaysNext(library)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take an episode out of the queue.")
        @Argument(help: "The episode's id.") var episode: Int64

        func run() async throws {
            try await withLibrary { (library) throws(PlayerClient.Failure) in try await library.dequeue(episode) }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Empty the queue.")

        func run() async throws {
            try await withLibrary { (library) throws(PlayerClient.Failure) in try await library.clearQueue() }
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move a queued episode to a position (1 is next).")
        @Argument(help: "The episode's id.") var episode: Int64
        @Argument(help: "The new position, 1 being next.") var position: Int

        func run() async throws {
            try await withLibrary { (library) throws(PlayerClient.Failure) in try await library.move(episode, to: position - 1) }
        }
    }
}
