import Foundation
import Glibc
import PodsTestSupport
import Testing

/// Libraries written by earlier Pods and kept in the tree (`Tests/Libraries`,
/// each made by its session's code with `make-library.sh`): today's podsd
/// opens each, keeps what it holds (the podcast and its setting, episodes,
/// the place paused at, the bookmark, the transcript, playlists, the queue)
/// and lives; then its rows are edited to every boundary value
/// (`StoredValuesTests.edits`) and every path is driven again.
@Suite(.serialized, .timeLimit(.minutes(4))) struct KeptLibraryTests {
    static var kept: [URL] {
        let folder = Fixtures.packageRoot.appendingPathComponent("Tests/Libraries")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".sqlite.gz") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test func everyKeptLibraryIsThere() {
        #expect(Self.kept.map(\.lastPathComponent).contains("session-28.sqlite.gz"))
    }

    @Test(arguments: kept) func aKeptLibraryOpensWithAllItHoldsAndLivesThroughEveryBoundary(_ file: URL) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("data/library.sqlite")
        try FileManager.default.createDirectory(at: library.deletingLastPathComponent(), withIntermediateDirectories: true)
        let unpacked = await Subprocess.run("/bin/sh", ["-c", "gzip -dc \"$0\" > \"$1\"", file.path, library.path])
        #expect(unpacked.status == 0, "\(unpacked)")

        var podsd = try await PodsdProcess.start(directory: directory)
        let podcasts = try Self.json(await podsd.pods("podcasts", "--json"))
        #expect(podcasts.map { $0["title"] as? String } == ["Kept Show"], "\(podcasts)")
        let episodes = try Self.json(await podsd.pods("episodes", "--json"))
        let talk = try #require(episodes.first { $0["guid"] as? String == "kept-1" }, "\(episodes)")
        let id = String(try #require(talk["id"] as? Int))
        #expect(episodes.count == 2)
        #expect((24...30).contains(talk["position"] as? Double ?? 0), "paused at \(talk["position"] ?? "nothing")")
        let bookmarks = try Self.json(await podsd.pods("bookmarks", "--json"))
        #expect(bookmarks.map { $0["note"] as? String } == ["the second line"], "\(bookmarks)")
        let playlists = try Self.json(await podsd.pods("playlists", "--json"))
        #expect(Set(playlists.compactMap { $0["name"] as? String }).isSuperset(of: ["Talks", "By hand"]), "\(playlists)")
        #expect(try Self.json(await podsd.pods("queue", "--json")).count == 1)
        let transcript = await podsd.pods("show", id, "--transcript")
        #expect(transcript.stdout.contains("A second line."), "\(transcript)")
        let speed = await podsd.pods("config", "--podcast", "Kept Show", "speed")
        #expect(speed.stdout.contains("1.2"), "\(speed)")
        try await Self.driveEveryPath(podsd, id)
        #expect(await podsd.signal(SIGTERM)?.status == 0)

        await StoredValuesTests.edit(library, StoredValuesTests.edits)
        podsd = try await PodsdProcess.start(bus: podsd.bus, directory: directory)
        try await Self.driveEveryPath(podsd, id)
        #expect(await podsd.signal(SIGTERM)?.status == 0)
    }

    static func driveEveryPath(_ podsd: PodsdProcess, _ id: String) async throws {
        for arguments in [["play", id], ["status"], ["chapters"], ["transcript"], ["show", id], ["show", "--transcript", id],
                          ["find", "second"], ["stats"], ["bookmarks"], ["play", "--bookmark", "1"], ["playlists"],
                          ["playlist", "show", "Talks"], ["queue"], ["podcast", "1"], ["episodes", "--json"], ["pause"]] {
            let result = await podsd.run(Fixtures.executable("pods"), arguments)
            #expect(!result.timedOut, "pods \(arguments.joined(separator: " ")): \(result)")
            #expect(podsd.isRunning, "podsd died at pods \(arguments.joined(separator: " ")): \(podsd.errorOutput().suffix(2_000))")
        }
    }

    static func json(_ result: CommandResult) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result)")
    }
}
