import Foundation
import Glibc
import PodsClient
import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsTestSupport
import Testing

/// `StreamEpisodes`: the whole list written into a pipe the client passes,
/// off the bus, on a private bus with the real podsd and the real `pods`.
@Suite(.timeLimit(.minutes(10))) struct EpisodeStreamTests {
    @Test func theStreamHoldsWhatPagingGivesInTheSameOrderAndEndsWithTheLastPage() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await onOwnThread {
            try GeneratedLibrary.populate(try libraryAt(directory), podcasts: 3, episodesEach: 1500, descriptionBytes: 500)
        }
        let podsd = try await PodsdProcess.start(directory: directory)
        #expect(podsd.connection.canPassFileDescriptors)

        let paged = try await pagedIDs(podsd, [:])
        #expect(paged.count == 4500 && Set(paged).count == 4500)
        let streamed = try await stream(podsd, [:])
        #expect(streamed.ids == paged, "the stream's \(streamed.ids.count) ids against paging's \(paged.count)")
        #expect(streamed.frames > 1 && streamed.largestFrame <= LibraryPaging.maxBytes + 1024, "\(streamed.frames) frames, the largest \(streamed.largestFrame) B")
        #expect(streamed.lastNext == LibraryPaging.start)

        // A filter, as ListEpisodes takes it; one that matches nothing is one empty last page.
        let show = try await stream(podsd, ["podcast": .string("Show 1")])
        #expect(show.ids == (try await pagedIDs(podsd, ["podcast": .string("Show 1")])) && show.ids.count == 1500)
        let library = LibraryClient(podsd.client)
        for id in show.ids { try await library.mark(episode: id, played: true) }
        let unplayed = try await stream(podsd, ["unplayed": .bool(true)])
        #expect(unplayed.ids.count == 3000 && Set(unplayed.ids).isDisjoint(with: show.ids))
        let none = try await stream(podsd, ["podcast": .string("Show 1"), "unplayed": .bool(true)])
        #expect(none.ids.isEmpty && none.frames == 1 && none.lastNext == LibraryPaging.start)

        // `pods episodes`, plain and --json, stream; with --limit they page.
        let plain = await podsd.pods("episodes")
        #expect(plain.status == 0 && plain.stdout.split(separator: "\n").count == 4500, "\(plain.stderr)")
        // Oldest first is the same list read backwards, streamed and paged alike.
        let oldest = await podsd.pods("episodes", "--oldest")
        #expect(oldest.stdout.split(separator: "\n") == Array(plain.stdout.split(separator: "\n").reversed()))
        let oldestPaged = await podsd.pods("episodes", "--oldest", "--limit", "1500")
        #expect(oldestPaged.stdout.split(separator: "\n") == Array(plain.stdout.split(separator: "\n").reversed().prefix(1500)))
        let json = await podsd.pods("episodes", "--json", "--unplayed")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(objects.compactMap { ($0["id"] as? Int).map(Int64.init) } == unplayed.ids)
        let limited = await podsd.pods("episodes", "--limit", "7")
        #expect(limited.stdout.split(separator: "\n").count == 7)
    }

    @Test func aWrongFilterIsOneErrorAndAReaderThatLeavesCostsPodsdNothing() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await onOwnThread {
            try GeneratedLibrary.populate(try libraryAt(directory), podcasts: 4, episodesEach: 2500, descriptionBytes: 200)
        }
        let podsd = try await PodsdProcess.start(directory: directory)
        func threads() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(podsd.processIdentifier)/task").count) ?? 0 }
        func openFiles() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(podsd.processIdentifier)/fd").count) ?? 0 }

        // Wrong input: an error reply, and nothing is written (the stream ends at once).
        for (filter, words) in [
            (["sort": DBusValue.string("title")], "no filter 'sort'"),
            (["podcast": .string("Nothing")], "no podcast is called Nothing"),
            (["order": .string("sideways")], "the filter's order is newest or oldest"),
        ] {
            let (readEnd, writeEnd) = try DBusFileDescriptor.pipe()
            await #expect(throws: DBusError.self) { try await Self.call(podsd, filter, writeEnd) }
            do { try await Self.call(podsd, filter, writeEnd) } catch { #expect(error.message.contains(words), "\(error.message)") }
            var reader = DBusBodyStream.Reader(readEnd, signature: LibraryMethod.streamFrameSignature)
            _ = consume writeEnd
            #expect(try reader.next() == nil)
        }
        // A string where the descriptor goes: the signature is wrong.
        await #expect(throws: DBusError.self) {
            _ = try await podsd.connection.call(destination: PodsBus.name, path: LibraryNames.objectPath, interface: LibraryNames.interface,
                                                member: LibraryMethod.streamEpisodes.name, arguments: [.variantDictionary([:]), .string("1")])
        }

        _ = try await stream(podsd, [:])  // the writers' threads start at the first stream
        let base = (threads: threads(), files: openFiles())
        // Readers that take one page of 10,000 episodes and close: podsd stops writing each
        // (EPIPE), lives on, and keeps no descriptor or thread for them.
        for _ in 0..<5 {
            let (readEnd, writeEnd) = try DBusFileDescriptor.pipe()
            try await Self.call(podsd, [:], writeEnd)
            _ = consume writeEnd
            var reader = DBusBodyStream.Reader(readEnd, signature: LibraryMethod.streamFrameSignature)
            #expect(try reader.next() != nil)
            _ = consume reader
        }
        try? await waitFor(timeout: .seconds(10)) { openFiles() <= base.files && threads() <= base.threads }
        #expect(openFiles() <= base.files && threads() <= base.threads, "files \(base.files) → \(openFiles()), threads \(base.threads) → \(threads())")
        #expect(podsd.isRunning)
        #expect(try await stream(podsd, [:]).ids.count == 10_000)
        #expect(try await podsd.client.property("PlaybackStatus").stringValue != nil)

        // At most eight streams at once: readers that read nothing hold theirs (each holds a
        // descriptor and pages), and the next is refused until one ends.
        var held: [DBusFileDescriptor] = []
        for _ in 0..<8 {
            let (readEnd, writeEnd) = try DBusFileDescriptor.pipe()
            try await Self.call(podsd, [:], writeEnd)
            held.append(readEnd)
        }
        let (_, extra) = try DBusFileDescriptor.pipe()
        do throws(DBusError) {
            try await Self.call(podsd, [:], extra)
            Issue.record("a ninth stream was taken")
        } catch {
            #expect(error.name == DBusError.Name.limitsExceeded, "\(error)")
        }
        held.removeAll()  // the readers go: their streams end
        try await waitFor(timeout: .seconds(20)) { (try? await stream(podsd, [:]).ids.count) == 10_000 }
    }

    // MARK: - Helpers

    /// Episode ids in list order, page by page through `ListEpisodes`.
    private func pagedIDs(_ podsd: PodsdProcess, _ filter: [String: DBusValue]) async throws -> [Int64] {
        var ids: [Int64] = [], cursor = ""
        repeat {
            let reply = try await podsd.connection.call(
                destination: PodsBus.name, path: LibraryNames.objectPath, interface: LibraryNames.interface,
                member: LibraryMethod.listEpisodes.name, arguments: [.variantDictionary(filter), .string(cursor), .uint32(0)])
            ids += (reply.first?.arrayValue ?? []).compactMap { $0.stringKeyedDictionary?["id"]?.int64Value }
            cursor = reply.last?.stringValue ?? ""
        } while !cursor.isEmpty
        return ids
    }

    /// Everything `StreamEpisodes` writes for `filter`, read to the end of the stream.
    private func stream(_ podsd: PodsdProcess, _ filter: [String: DBusValue]) async throws
        -> (ids: [Int64], frames: Int, largestFrame: Int, lastNext: String?) {
        let (readEnd, writeEnd) = try DBusFileDescriptor.pipe()
        try await Self.call(podsd, filter, writeEnd)
        _ = consume writeEnd
        var reader = DBusBodyStream.Reader(readEnd, signature: LibraryMethod.streamFrameSignature)
        var ids: [Int64] = [], frames = 0, largest = 0, lastNext: String?
        while let body = try reader.next() {
            #expect(lastNext == nil || lastNext?.isEmpty == false, "a frame after the last page")
            var values = body.reader()
            let items = try values.value(of: .array(.dictionary(key: .string, value: .variant))).arrayValue ?? []
            ids += items.compactMap { $0.stringKeyedDictionary?["id"]?.int64Value }
            lastNext = try values.string()
            frames += 1
            largest = max(largest, body.bytes.count)
        }
        return (ids, frames, largest, lastNext)
    }

    private static func call(_ podsd: PodsdProcess, _ filter: [String: DBusValue], _ writeEnd: DBusFileDescriptor) async throws(DBusError) {
        _ = try await podsd.connection.call(destination: PodsBus.name, path: LibraryNames.objectPath, interface: LibraryNames.interface,
                                            member: LibraryMethod.streamEpisodes.name,
                                            arguments: [.variantDictionary(filter), .unixFD(writeEnd)])
    }
}
