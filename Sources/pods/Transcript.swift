import ArgumentParser
import Foundation
import PodsClient
import PodsDBus
import PodsProtocol

struct TranscriptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcript",
        abstract: "Print the transcript's lines as they are heard (--follow), or the loaded episode's whole transcript.")

    @Flag(help: "Print each line of the playing episode's transcript as it is heard, until interrupted.") var follow = false
    @OptionGroup var format: OutputFormat

    func run() async throws {
        try await withPlayer { (player) throws(PlayerClient.Failure) in
            if follow { return try await Self.follow(player, json: format.json) }
            let status = try await player.status()
            guard let episode = status.episodeId else { throw PlayerClient.Failure("no episode is loaded") }
            var lines: [DBusValue] = []
            try await LibraryClient(player).transcript(episode: episode) { page in lines += page }
            if format.json { return ItemOutput.print(lines, LibraryItems.cue) }
            for line in lines {
                print(Self.line(Show.cueText(start: line["start"]?.doubleValue, speaker: line["speaker"]?.stringValue, text: line["text"].text)))
            }
        }
    }

    /// One line a cue, as a pipe reads them.
    static func line(_ text: String) -> String { text.split(whereSeparator: \.isNewline).joined(separator: " ") }

    /// Each new line of `pods:cue` in MPRIS `Metadata`: the one playing now
    /// first, then every change (podsd sends one per line, at most twice a
    /// second, none while paused).
    static func follow(_ player: PlayerClient, json: Bool) async throws(PlayerClient.Failure) {
        let changes: AsyncStream<DBusSignal>
        do throws(DBusError) {
            changes = try await player.connection.signals(matching: DBusSignalMatch(
                sender: MPRIS.busName, path: MPRIS.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        } catch { throw PlayerClient.Failure(error.message) }
        var last: Int32?
        func show(_ metadata: [String: DBusValue]) {
            guard let index = metadata[MPRIS.Metadata.cueIndex]?.int64Value.map({ Int32(clamping: $0) }), index != last,
                  let text = metadata[MPRIS.Metadata.cue]?.stringValue else { return }
            last = index
            let start = metadata[MPRIS.Metadata.cueStart]?.doubleValue
            if json {
                var item: [String: DBusValue] = ["index": .int32(index), "text": .string(text)]
                item["start"] = start.map(DBusValue.double)
                ItemOutput.print(.variantDictionary(item), PlayerItems.heardCue)
            } else {
                StandardOutput.write(Array((printable(line(Show.cueText(start: start, speaker: nil, text: text))) + "\n").utf8))  // unbuffered: a pipe sees each line as heard
            }
        }
        if let metadata = try? await player.property(MPRIS.PlayerProperty.metadata.name).stringKeyedDictionary { show(metadata) }
        for await change in changes {
            guard change.arguments.first?.stringValue == MPRIS.playerInterface,
                  let changed = change.arguments.dropFirst().first?.stringKeyedDictionary,
                  let metadata = changed["Metadata"]?.stringKeyedDictionary else { continue }
            show(metadata)
        }
    }
}
