import PodsChapters
import PodsDBus
import PodsProtocol

/// `/org/pods/Player`: the `org.pods.Player1` interface, what Pods' player
/// does that MPRIS has no word for: chapters, skips, the sleep timer.
enum PlayerObject {
    static func make(controller: PlayerController, player: LibraryPlayer?, skips: @escaping @Sendable () async -> SkipIntervals)
        -> DBusExportedObject {
        func method(_ description: PlayerMethod,
                    _ body: @escaping @Sendable ([DBusValue]) async throws(DBusError) -> [DBusValue]) -> DBusMethod {
            DBusMethod(description.name, inputs: description.inputs, outputs: description.outputs) { arguments in
                try await body(arguments)
            }
        }
        return DBusExportedObject(path: PlayerNames.objectPath, interfaces: [DBusInterface(
            name: PlayerNames.interface,
            methods: [
                // MARK: Chapters
                method(.chapters) { arguments throws(DBusError) in
                    let id = arguments[0].int64Value ?? 0
                    let chapters: [EpisodeChapter]
                    if let player {
                        chapters = try await player.chapters(of: id)
                    } else {
                        guard id == 0 else { throw DBusError(name: LibraryNames.Error.notFound, message: "podsd keeps no library") }
                        chapters = await controller.chapters()
                    }
                    let jumps = chapters.filter(\.toc)
                    return [ReplyPage.bounded(Array(jumps.enumerated())) { index, chapter in
                        PlayerItemEncoding.chapter(chapter, index: index + 1)
                    }.list]
                },
                method(.goToChapter) { arguments throws(DBusError) in
                    try await controller.goToChapter(try chapterTarget(arguments[0].stringValue ?? ""))
                    return []
                },

                // MARK: Skips
                method(.skip) { arguments throws(DBusError) in
                    let direction = arguments[0].stringValue ?? ""
                    let seconds = arguments[1].doubleValue ?? 0
                    guard seconds.isFinite, seconds >= 0, seconds <= 24 * 3600 else {
                        throw DBusError.invalidArgs("A skip is 0 (the configured interval) to 86400 seconds")
                    }
                    let intervals = await skips()
                    switch direction {
                    case "forward": await controller.seek(by: .seconds(seconds == 0 ? intervals.forward : seconds))
                    case "back": await controller.seek(by: .seconds(-(seconds == 0 ? intervals.back : seconds)))
                    default: throw DBusError.invalidArgs("Skip goes 'forward' or 'back', not '\(direction.prefix(40))'")
                    }
                    return []
                },

                // MARK: Status
                method(.extras) { _ throws(DBusError) in
                    let state = await controller.currentState()
                    return [PlayerItemEncoding.extras(state)]
                },
            ])], executor: MPRISObject.callThread)
    }

    /// `next`, `prev` (or `previous`), or a number from 1.
    static func chapterTarget(_ text: String) throws(DBusError) -> PlayerController.ChapterTarget {
        switch text.lowercased() {
        case "next": return .next
        case "prev", "previous": return .previous
        default:
            guard let number = Int(text) else {
                throw DBusError.invalidArgs("A chapter is 'next', 'prev' or its number, not '\(text.prefix(40))'")
            }
            return .number(number)
        }
    }
}

/// How far `pods forward` and `pods back` go by default, in seconds.
struct SkipIntervals: Sendable, Equatable {
    var forward = 30.0
    var back = 10.0
}
