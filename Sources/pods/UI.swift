import ArgumentParser
import Foundation
import PodsClient
import PodsTerminal
import PodsUI

struct UI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "The library, show notes and player on one screen, live (? lists the keys; quitting leaves playback running).")

    @Flag(help: "No colours (as NO_COLOR does).") var noColor = false

    func run() async throws {
        let color = !noColor && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
        let player: PlayerClient
        do { player = try await PlayerClient.session() } catch {
            FileHandle.standardError.write(Data("pods: \(error.description)\n".utf8))
            throw ExitCode.failure
        }
        defer { player.connection.close() }
        // The terminal is one thread's: the UI runs on its own, the bus on the task pool.
        let failure = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            Thread {
                do throws(TerminalError) {
                    let app = try UIApp(player: player, keys: KeyMap(), color: color)
                    app.run()
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: error.description)
                }
            }.start()
        }
        if let failure {
            FileHandle.standardError.write(Data("pods: \(failure)\n".utf8))
            throw ExitCode.failure
        }
    }
}
