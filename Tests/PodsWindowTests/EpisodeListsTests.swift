import Foundation
import PodsTestSupport
import Testing

/// Up Next, Downloads and Bookmarks in the real window against the real
/// podsd: each follows podsd's announcements (changes made by `pods` show
/// without a reload) and each row's buttons act on podsd.
@Suite(.timeLimit(.minutes(5))) struct EpisodeListsTests {
    static func ids(_ podsd: PodsdProcess) async throws -> [String: Int64] {
        let listed = await podsd.pods("episodes", "--json")
        let episodes = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed)")
        return Dictionary(episodes.compactMap { episode in
            (episode["title"] as? String).flatMap { title in (episode["id"] as? Int).map { (title, Int64($0)) } }
        }, uniquingKeysWith: { first, _ in first })
    }

    static func queueTitles(_ podsd: PodsdProcess) async throws -> [String] {
        let listed = await podsd.pods("queue", "--json")
        let queue = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed)")
        return queue.compactMap { $0["title"] as? String }
    }

    @Test func upNextDownloadsAndBookmarksFollowPodsdAndTheirButtonsActOnIt() async throws {
        let (podsd, server) = try await WindowTests.podsdWithAShow()
        defer { server.stop() }
        let ids = try await Self.ids(podsd)
        let first = try #require(ids["First episode"]), second = try #require(ids["Second episode"]), third = try #require(ids["Third episode"])
        try await DesktopSession.with(podsd) { desktop in
            let driver = desktop.driver
            try await driver.wait("list item", "^Window Show")
            try await driver.press("page tab", "^Up Next$")
            try await driver.wait("label", "^Nothing up next$")
            // Queued by `pods`: the open list shows them at once.
            #expect(await podsd.pods("queue", "add", String(first), String(second), String(third)).status == 0)
            try await driver.wait("list item", "^Third episode, Window Show", seconds: 5)
            try await driver.press("push button", "^Move Third episode up$")
            try await waitFor(timeout: .seconds(5)) {
                (try? await Self.queueTitles(podsd)) == ["First episode", "Third episode", "Second episode"]
            }
            try await driver.press("push button", "^Remove First episode from Up Next$")
            try await waitFor(timeout: .seconds(5)) { (try? await Self.queueTitles(podsd)) == ["Third episode", "Second episode"] }
            let upNext = try await driver.unnamed()
            #expect(upNext.unnamed == [] && upNext.seen >= 10, "\(upNext)")

            // A download made by `pods` appears with its state; Delete takes it away.
            try await driver.press("page tab", "^Downloads$")
            try await driver.wait("label", "^No downloads$")
            #expect(await podsd.pods("download", String(second)).status == 0)
            try await driver.wait("list item", "^Second episode, Window Show · downloaded", seconds: 10)
            try await driver.press("push button", "^Delete the download of Second episode$")
            try await driver.wait("label", "^No downloads$", seconds: 5)
            #expect(await podsd.pods("downloads").stdout.contains("Second episode") == false)

            // A bookmark made by `pods bookmark` appears in the open list; it plays from there and is deleted.
            try await driver.press("page tab", "^Bookmarks$")
            try await driver.wait("label", "^No bookmarks$")
            #expect(await podsd.pods("play", String(first)).status == 0)
            try await waitFor(timeout: .seconds(5)) { await podsd.playerctl("status").stdout.contains("Playing") }
            #expect(await podsd.pods("seek", "30").status == 0)
            #expect(await podsd.pods("bookmark", "the good part").status == 0)
            try await driver.wait("list item", "First episode: the good part, Window Show", seconds: 5)
            #expect(await podsd.pods("play", String(third)).status == 0)
            try await driver.press("push button", "^Play from the bookmark 0:3\\d  First episode: the good part$")
            try await waitFor(timeout: .seconds(5)) { await podsd.playerctl("metadata", "xesam:title").stdout.contains("First episode") }
            try await driver.press("push button", "^Delete the bookmark 0:3\\d  First episode")
            try await driver.wait("label", "^No bookmarks$", seconds: 5)
            let bookmarks = try await driver.unnamed()
            #expect(bookmarks.unnamed == [] && bookmarks.seen >= 6, "\(bookmarks)")
            desktop.screenshot("lists")
        }
    }
}
