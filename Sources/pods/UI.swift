import ArgumentParser
import Foundation
import PodsClient
import PodsSettings
import PodsTerminal
import PodsUI

struct UI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "The library, show notes and player on one screen, live (? lists the keys; quitting leaves playback running).")

    @Flag(help: "No colours (as NO_COLOR does).") var noColor = false
    @Flag(help: "No artwork, whatever the terminal can show (as ui-artwork = \"off\" in the settings file).") var noArtwork = false
    @Option(help: ArgumentHelp(
        "The settings file whose [keys] table and ui-artwork setting pods ui reads (default: $XDG_CONFIG_HOME/pods/config.toml).",
        valueName: "file"))
    var config: String?

    /// The keys (the defaults, with the config file's `[keys]` over them) and
    /// how artwork is shown (`ui-artwork`).
    private func settings() throws(ValidationError) -> (keys: KeyMap, pictures: TerminalPictures.Mode) {
        let environment = ProcessInfo.processInfo.environment
        let file = config.map { URL(fileURLWithPath: $0) } ?? ConfigFile.defaultURL(environment: environment)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            if config != nil { throw ValidationError("cannot read \(file.path)") }
            return (KeyMap(), .auto)
        }
        do {
            let text = String(decoding: data, as: UTF8.self)
            let artwork = try ConfigFile.parse(text, name: file.path)[.uiArtwork].textValue
            return (try KeyMap(bindings: try ConfigFile.keyBindings(text, name: file.path)),
                    artwork.flatMap(TerminalPictures.Mode.init(rawValue:)) ?? .auto)
        } catch let error as SettingsError {
            throw ValidationError(error.message)
        } catch let error as KeyMapError {
            throw ValidationError("\(file.path) \(error.description)")
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() async throws {
        let (keys, artwork) = try settings()
        let environment = ProcessInfo.processInfo.environment
        let color = !noColor && (environment["NO_COLOR"] ?? "").isEmpty
        let pictures = !noArtwork && TerminalPictures.enabled(artwork, environment: environment)
        let player: PlayerClient
        do { player = try await PlayerClient.session() } catch {
            printError(error.description)
            throw ExitCode.failure
        }
        defer { player.connection.close() }
        // The terminal is one thread's: the UI runs on its own, the bus on the task pool.
        let failure = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            Thread {
                do throws(TerminalError) {
                    let app = try UIApp(player: player, keys: keys, color: color, pictures: pictures)
                    app.run()
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: error.description)
                }
            }.start()
        }
        if let failure {
            printError("\(failure)")
            throw ExitCode.failure
        }
    }
}
