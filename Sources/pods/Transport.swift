import ArgumentParser
import PodsClient

struct Pause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Pause.")
    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in try await player.pause() }
    }
}

struct Toggle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Play if paused or stopped, pause if playing.")
    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in try await player.playPause() }
    }
}

struct Stop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop and rewind; play starts the episode again.")
    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in try await player.stop() }
    }
}
