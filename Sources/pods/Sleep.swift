import ArgumentParser
import PodsClient
import PodsProtocol
import PodsSettings

struct Sleep: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pause after a while (30m, 90s, 1h30m), at the end of the episode (end) or chapter (chapter); off cancels.",
        discussion: "The volume fades out over the last 10 s, then playback pauses and the volume comes back. "
            + "Pausing by hand keeps the timer; a timer in minutes counts playing time.")

    @Argument(help: ArgumentHelp("30m, 90s, 1h30m, end, chapter or off", valueName: "timer")) var timer: String

    func validate() throws {
        do { _ = try SleepRequest(timer) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in try await PodsPlayerClient(player).setSleepTimer(timer) }
    }
}
