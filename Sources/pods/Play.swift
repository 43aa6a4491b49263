import ArgumentParser
import Foundation
import PodsClient

struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Resume, or play a file or http(s) URL.")

    @Argument(help: ArgumentHelp("A path, a file:// URI or an http(s):// URL.", valueName: "uri"))
    var uri: String?

    func run() async throws {
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
