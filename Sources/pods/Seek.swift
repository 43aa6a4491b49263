import ArgumentParser
import PodsClient

struct Seek: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Move the position: +30 and -15 are relative, 90, 1:30 and 1:02:03 absolute.")

    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("+SECONDS, -SECONDS, SECONDS, M:S or H:M:S", valueName: "position"))
    var position: [String] = []

    func validate() throws {
        guard position.count == 1, PositionArgument(position[0]) != nil else {
            throw ValidationError("give one position: +30, -15, 90, 1:30 or 1:02:03")
        }
    }

    func run() async throws {
        guard let text = position.first, let target = PositionArgument(text) else { throw ExitCode.validationFailure }
        try await withPlayer { (player) throws(PlayerClient.Failure) in
            switch target {
            case .relative(let offset): try await player.seek(by: offset)
            case .absolute(let point): try await player.setPosition(point)
            }
        }
    }
}
