import ArgumentParser
import Foundation
import PodsClient
import PodsDBus
import PodsProtocol

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sync subscriptions and listening progress with a gpodder.net-compatible or Nextcloud GPodder Sync server.",
        discussion: "Without a subcommand, syncs now. podsd also syncs by itself: at start, after refreshes, and a few seconds after playback pauses or stops.",
        subcommands: [Now.self, Setup.self, Status.self, Off.self],
        defaultSubcommand: Now.self)

    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "now", abstract: "Sync now (what `pods sync` does).")

        @Flag(help: "Read everything from the server again (since 0), and send every subscription and all progress.") var full = false
        @OptionGroup var format: OutputFormat

        func run() async throws {
            try await withLibrary { (library) throws(PlayerClient.Failure) in
                let result = try await library.sync(full: full)
                if format.json {
                    ItemOutput.print(result, LibraryItems.syncResult)
                } else {
                    print(Sync.summary(result))
                }
                if let error = result["error"]?.text { throw PlayerClient.Failure(error) }
            }
        }
    }

    struct Setup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join a sync server: checks the login at once and keeps the password (Secret Service, else a 0600 file).")

        @Argument(help: "The server's URL: https://gpodder.net, a self-hosted gpodder.net-compatible server, or your Nextcloud's address.")
        var server: String
        @Option(help: "Your user name on the server.") var user: String
        @Option(help: "This device's id on gpodder.net (letters, digits, '.', '-', '_'; default pods-HOSTNAME). Give another device's id to share its subscriptions.")
        var device: String?
        @Option(help: "The server's API: gpodder or nextcloud.") var api: API = .gpodder
        @Flag(help: "Read the password (a Nextcloud app password) from standard input.") var passwordStdin = false
        @OptionGroup var format: OutputFormat

        enum API: String, ExpressibleByArgument, CaseIterable { case gpodder, nextcloud }

        func validate() throws {
            if !passwordStdin { throw ValidationError("give the password on standard input with --password-stdin") }
        }

        func run() async throws {
            let password = readLine(strippingNewline: true) ?? ""
            try await withLibrary { (library) throws(PlayerClient.Failure) in
                let status = try await library.setupSync(server: server, user: user, device: device ?? "", api: api.rawValue,
                                                         password: password)
                if format.json { return ItemOutput.print(status, LibraryItems.syncStatus) }
                print("Syncing with \(status["server"].text) as \(status["user"].text) (device \(status["device"].text)); podsd syncs now.")
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the sync server, the last sync and what waits to be sent.")

        @OptionGroup var format: OutputFormat

        func run() async throws {
            try await withLibrary { (library) throws(PlayerClient.Failure) in
                let status = try await library.syncStatus()
                if format.json { return ItemOutput.print(status, LibraryItems.syncStatus) }
                guard status["enabled"]?.boolValue == true else {
                    print("Sync is off. Turn it on with: pods sync setup SERVER_URL --user NAME --password-stdin")
                    return
                }
                print("Server:  \(status["server"].text) (\(status["api"].text)), user \(status["user"].text), device \(status["device"].text)")
                if let at = status["lastSyncAt"]?.int64Value {
                    let when = Date(timeIntervalSince1970: TimeInterval(at)).formatted(date: .abbreviated, time: .standard)
                    print("Last:    \(when)" + (status["last"].map { ", " + Sync.summary($0) } ?? ""))
                } else {
                    print("Last:    never")
                }
                if let error = status["lastError"]?.text { print("Error:   \(error)") }
                print("Queued:  \(status["queued"].int) actions wait for the server")
            }
        }
    }

    struct Off: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop syncing and forget the password (what is queued stays for a later setup).")

        func run() async throws {
            try await withLibrary { (library) throws(PlayerClient.Failure) in
                try await library.stopSync()
                print("Sync is off.")
            }
        }
    }

    /// `sent 3, applied 2, subscribed 1, unsubscribed 0`.
    static func summary(_ result: DBusValue) -> String {
        var text = "sent \(result["uploaded"].int), applied \(result["applied"].int), "
            + "subscribed \(result["subscribed"].int), unsubscribed \(result["unsubscribed"].int)"
        if result["skipped"].int > 0 { text += ", skipped \(result["skipped"].int)" }
        if result["queued"].int > 0 { text += ", \(result["queued"].int) still queued" }
        return text
    }
}
