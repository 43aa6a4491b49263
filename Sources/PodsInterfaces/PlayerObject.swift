import PodsChapters
import PodsDBus
import PodsLibrary
import PodsPlayback
import PodsPlayer
import PodsProtocol
import PodsSession
import PodsSettings

/// `/org/pods/Player`: the `org.pods.Player1` interface, what Pods' player
/// does that MPRIS has no word for: chapters, skips, the sleep timer.
package enum PlayerObject {
    package static func make(controller: PlayerController, player: Playback, library: Library, bookmarks: Bookmarks,
                             preferences: PreferenceStore, settings: SettingsEdits) throws(MethodTable.Incomplete) -> DBusExportedObject {
        func method(_ description: PlayerMethod,
                    _ body: @escaping @Sendable ([DBusValue]) async throws(DBusError) -> [DBusValue]) -> DBusMethod {
            description.exported { arguments in try await body(arguments) }
        }
        let handlers = [
            // MARK: Chapters
            method(.chapters) { arguments throws(DBusError) in
                let id = arguments[0].int64Value ?? 0
                let chapters = try await onBus { () throws(SessionError) in try await player.chapters(of: id) }
                let skipped = await player.skippedChapters(of: id)?.matcher() ?? { _ in false }
                let jumps = chapters.filter(\.toc)
                return [ReplyPage.bounded(Array(jumps.enumerated())) { index, chapter in
                    PlayerItemEncoding.chapter(chapter, index: index + 1, skipped: skipped(chapter.title)).value
                }.list]
            },
            method(.goToChapter) { arguments throws(DBusError) in
                let target = try chapterTarget(arguments[0].stringValue ?? "")
                do throws(PlayerError) { try await controller.goToChapter(target) } catch { throw DBusError(error) }
                return []
            },

            // MARK: Skips
            method(.skip) { arguments throws(DBusError) in
                let direction = arguments[0].stringValue ?? ""
                let seconds = arguments[1].doubleValue ?? 0
                guard seconds.isFinite, seconds >= 0, seconds <= 24 * 3600 else {
                    throw DBusError.invalidArgs("A skip is 0 (the configured interval) to 86400 seconds")
                }
                let intervals = await player.skipIntervals()
                switch direction {
                case "forward": await controller.seek(by: .seconds(seconds == 0 ? intervals.forward : seconds))
                case "back": await controller.seek(by: .seconds(-(seconds == 0 ? intervals.back : seconds)))
                default: throw DBusError.invalidArgs("Skip goes 'forward' or 'back', not '\(direction.prefix(40))'")
                }
                return []
            },

            // MARK: Sleep timer
            method(.setSleepTimer) { arguments throws(DBusError) in
                let request: SleepRequest
                do throws(SleepRequest.Invalid) { request = try SleepRequest(arguments[0].stringValue ?? "") } catch {
                    throw DBusError.invalidArgs(error.description)
                }
                do throws(PlayerError) { try await controller.setSleepTimer(request) } catch { throw DBusError(error) }
                return []
            },

            // MARK: Bookmarks
            method(.bookmark) { arguments throws(DBusError) in
                let note = arguments[0].stringValue ?? ""
                return [.int64(try await onBus { () throws(SessionError) in try await bookmarks.take(note: note).id })]
            },

            // MARK: Settings
            method(.config) { arguments throws(DBusError) in
                let podcast = try await podcastID(arguments[0].stringValue ?? "", library)
                let name = arguments[1].stringValue ?? ""
                let entries = name.isEmpty ? preferences.entries(podcast: podcast)
                    : [preferences.entry(try settingKey(name), podcast: podcast)]
                return [ReplyPage.bounded(entries, item: { PlayerItemEncoding.setting($0).value }).list]
            },
            method(.setConfig) { arguments throws(DBusError) in
                let podcast = try await podcastID(arguments[0].stringValue ?? "", library)
                let (name, text) = (arguments[1].stringValue ?? "", arguments[2].stringValue ?? "")
                try await onBus { () throws(SessionError) in try await settings.set(name, text, podcast: podcast) }
                return []
            },
            method(.unsetConfig) { arguments throws(DBusError) in
                let podcast = try await podcastID(arguments[0].stringValue ?? "", library)
                let name = arguments[1].stringValue ?? ""
                try await onBus { () throws(SessionError) in try await settings.unset(name, podcast: podcast) }
                return []
            },

            // MARK: Status
            method(.extras) { _ throws(DBusError) in
                let state = await controller.currentState()
                return [PlayerItemEncoding.extras(state, sleep: await controller.sleepStatus(),
                                                  silenceSkipped: await controller.silenceSkipped(),
                                                  loudnessGain: await controller.loudnessGain()).value]
            },
        ]
        return DBusExportedObject(path: PlayerNames.objectPath, interfaces: [DBusInterface(
            name: PlayerNames.interface,
            methods: try MethodTable.build(handlers, declared: PlayerMethod.all, interface: PlayerNames.interface))],
            executor: MPRISObject.callThread)
    }

    private static func settingKey(_ name: String) throws(DBusError) -> SettingKey {
        do throws(SettingsError) { return try SettingKey.named(name) } catch { throw DBusError.invalidArgs(error.message) }
    }

    /// A podcast by id or title prefix; nil for "" (the player's settings).
    private static func podcastID(_ text: String, _ library: Library) async throws(DBusError) -> Int64? {
        guard !text.isEmpty else { return nil }
        return try await LibraryCall.run { () throws(LibraryError) in try library.podcast(matching: text).id }
    }

    /// `next`, `prev` (or `previous`), or a number from 1.
    package static func chapterTarget(_ text: String) throws(DBusError) -> PlayerController.ChapterTarget {
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
