import ArgumentParser
import PodsClient

struct Speed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Set the playback speed (0.5 to 3.0), keeping the pitch.")

    @Argument(help: ArgumentHelp("The rate, such as 1.5.", valueName: "rate"))
    var rate: Double

    func validate() throws {
        guard rate.isFinite, (0.5...3).contains(rate) else { throw ValidationError("the speed is 0.5 to 3.0, such as 1.5") }
    }

    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in try await player.setRate(rate) }
    }
}

struct Volume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Set the volume: 0 is silent, 1 is full.")

    @Argument(help: ArgumentHelp("The volume, such as 0.8.", valueName: "level"))
    var level: Double

    func validate() throws {
        guard level.isFinite else { throw ValidationError("the volume must be a number, such as 0.8") }
    }

    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in try await player.setVolume(level) }
    }
}
