import ArgumentParser
import PodsClient
import PodsProtocol

struct Chapters: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List an episode's chapters (from the feed, its chapters file and the audio file's tags, merged).")

    @Argument(help: "The episode's id; the loaded episode when left out.") var episode: Int64?
    @OptionGroup var format: OutputFormat

    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in
            let chapters = try await PodsPlayerClient(player).chapters(episode: episode ?? 0)
            if format.json { return ItemOutput.print(chapters, PlayerItems.chapter) }
            if chapters.isEmpty { return print("No chapters.") }
            for chapter in chapters {
                let skipped = chapter["skipped"]?.boolValue == true ? "  (skipped)" : ""
                print("\(Podcasts.padded(chapter["index"].int, 3))  \(Status.clock(chapter["start"]?.doubleValue ?? 0))  "
                      + chapter["title"].text + skipped)
            }
        }
    }
}

struct ChapterJump: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chapter", abstract: "Jump to the next or previous chapter, or to chapter N.")

    @Argument(help: ArgumentHelp("next, prev, or a chapter's number (as `pods chapters` lists them)", valueName: "chapter"))
    var target: String

    func validate() throws {
        guard ["next", "prev", "previous"].contains(target) || Int(target).map({ $0 >= 1 }) == true else {
            throw ValidationError("give next, prev, or a chapter number from 1")
        }
    }

    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in try await PodsPlayerClient(player).goToChapter(target) }
    }
}

struct Next: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The next chapter, else the next episode (the queue's head, else the podcast's next unplayed).")
    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in try await player.next() }
    }
}

struct Previous: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Back to the start of the chapter (or episode) when more than 3 s in, else the previous chapter or episode.")
    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in try await player.previous() }
    }
}

struct Forward: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Skip forward (by the configured skip-forward, 30 s unless set).")

    @Argument(help: "Seconds to skip.") var seconds: Double?

    func validate() throws { try Skip.validate(seconds) }

    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in try await PodsPlayerClient(player).skip("forward", seconds: seconds) }
    }
}

struct Back: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Skip back (by the configured skip-back, 10 s unless set).")

    @Argument(help: "Seconds to skip.") var seconds: Double?

    func validate() throws { try Skip.validate(seconds) }

    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in try await PodsPlayerClient(player).skip("back", seconds: seconds) }
    }
}

enum Skip {
    static func validate(_ seconds: Double?) throws {
        guard let seconds else { return }
        guard seconds.isFinite, seconds > 0, seconds <= 86400 else { throw ValidationError("skip by 1 to 86400 seconds") }
    }
}
