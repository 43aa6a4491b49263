import ArgumentParser
import Foundation
import PodsClient

struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Resume, or play an episode, a file or an http(s) URL.")

    @Argument(help: ArgumentHelp("An episode id, a path, a file:// URI or an http(s):// URL.", valueName: "episode|uri"))
    var uri: String?

    @Option(help: ArgumentHelp("Play from 5 s before this bookmark; the episode's resume position stays where it was.",
                               valueName: "id"))
    var bookmark: Int64?

    @Option(help: ArgumentHelp("Play the episode from this time: 90, 1:30 or 1:02:03 (as pods find shows a moment).",
                               valueName: "time"))
    var at: String?

    func validate() throws {
        if bookmark != nil, uri != nil { throw ValidationError("--bookmark plays its own episode: give no episode or URI") }
        if let at {
            guard case .absolute = PositionArgument(at) else { throw ValidationError("--at takes a time such as 90, 1:30 or 1:02:03") }
            guard let uri, Int64(uri) != nil else { throw ValidationError("--at plays a library episode: give its id") }
        }
    }

    func run() async throws {
        if let bookmark {
            return try await withLibrary { (library) throws(PlayerClient.Failure) in try await library.playBookmark(bookmark) }
        }
        if let uri, let episode = Int64(uri), !FileManager.default.fileExists(atPath: uri) {
            return try await withLibrary { (library) throws(PlayerClient.Failure) in
                if let at, case .absolute(let start) = PositionArgument(at) {
                    try await library.play(episode: episode, at: start / .seconds(1))
                } else {
                    try await library.play(episode: episode)
                }
            }
        }
        let target = uri.map(Self.absoluteURI)
        try await withPlayer { (player) throws(PlayerClient.Failure) in
            if let target { try await player.open(uri: target) } else { try await player.play() }
        }
    }

    /// A path becomes a `file://` URI; anything with a scheme passes through.
    static func absoluteURI(_ argument: String) -> String {
        if let scheme = argument.split(separator: ":", maxSplits: 1).first, argument.contains("://") || argument.hasPrefix("file:"),
           scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
            return argument
        }
        return URL(fileURLWithPath: argument).standardizedFileURL.absoluteString
    }
}
