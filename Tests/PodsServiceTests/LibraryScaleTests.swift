import Foundation
import PodsClient
import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsTestSupport
import Testing

/// The library interface with a library of a real listener's size, on a
/// private bus with the real podsd and the real `pods`.
@Suite(.timeLimit(.minutes(10))) struct LibraryScaleTests {
    @Test func listing50kEpisodesStreamsValidJSONWhileMPRISStaysFastAndPodsdStaysSmall() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await onOwnThread {
            try GeneratedLibrary.populate(try libraryAt(directory), podcasts: 25, episodesEach: 2000, descriptionBytes: 2000)
        }
        let podsd = try await PodsdProcess.start(directory: directory)
        let peakBefore = try #require(ProcessMemory.kibibytes("VmHWM", of: podsd.processIdentifier))

        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)  // a track for PlayPause
        try await podsd.client.pause()
        let environment = podsd.bus.environment
        func listAndMeasure() async throws -> (listing: CommandResult, getP99: Double, toggleP99: Double) {
            let started = ContinuousClock.now
            let measured = try await MPRISTiming.during(podsd.connection) {
                await Subprocess.run(Fixtures.executable("pods"), ["episodes", "--json"], environment: environment, timeout: .seconds(180))
            }
            let getP99 = MPRISTiming.percentile(measured.getPosition, 0.99)
            let toggleP99 = MPRISTiming.percentile(measured.playPause, 0.99)
            print("50k listing: \(ContinuousClock.now - started), \(measured.result.stdout.utf8.count) bytes; during it Get(Position) p99 \(getP99) ms "
                  + "(\(measured.getPosition.count) calls), PlayPause → PropertiesChanged p99 \(toggleP99) ms (\(measured.playPause.count))")
            #expect(measured.getPosition.count >= 20 && measured.playPause.count >= 5)
            return (measured.result, getP99, toggleP99)
        }
        let first = try await listAndMeasure()
        let listing = first.listing
        #expect(listing.status == 0, "\(listing.stderr)")
        let episodes = try #require(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])
        #expect(episodes.count == 50_000)
        #expect(Set(episodes.compactMap { $0["id"] as? Int }).count == 50_000)
        #expect(Set(episodes.first?.keys.map { $0 } ?? []) == Set(LibraryItems.episodeSummary.fields.map(\.name)))
        #expect(episodes.allSatisfy { $0["description"] == nil })

        // The benchmark holds the release build to 5 ms; a debug build gets more room (8–10 ms
        // measured). It runs with the real-time suites, alone: beside the parallel suite's other
        // work the same listing took 24–33 s and its p99s 28–51 ms. The machine's own noise
        // (a virtual machine) took one CI run's PlayPause p99 to 31 ms with nothing else
        // running, so a listing over the bound is listed again, and the second must hold:
        // a podsd that lets the listing hold up MPRIS misses both.
        var timing = (get: first.getP99, toggle: first.toggleP99)
        if !(timing.get < 25 && timing.toggle < 25) {
            let second = try await listAndMeasure()
            timing = (second.getP99, second.toggleP99)
        }
        #expect(timing.get < 25 && timing.toggle < 25, "Get(Position) p99 \(timing.get) ms, PlayPause p99 \(timing.toggle) ms while listing")

        #expect(podsd.isRunning)
        let peakAfter = try #require(ProcessMemory.kibibytes("VmHWM", of: podsd.processIdentifier))
        print("50k listing: podsd's peak RSS grew by \(peakAfter - peakBefore) KiB")
        #expect(peakAfter - peakBefore < 20 * 1024, "podsd's peak RSS grew by \(peakAfter - peakBefore) KiB")
        #expect(["Playing", "Paused"].contains(try await podsd.client.property("PlaybackStatus").stringValue ?? ""))
    }

    /// 200 feeds refreshed with every ETag changed (all re-fetched and
    /// re-parsed), twice, while MPRIS is measured: podsd answers throughout,
    /// stores every feed, and is alive afterwards.
    @Test func refreshOf200ChangedFeedsKeepsMPRISFast() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer(files: [:])
        defer { server.stop() }
        let description = String(repeating: "A long show note with <b>markup</b> &amp; links. ", count: 20)
        func feed(_ index: Int, build: Int) -> Data {
            var xml = #"<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>"#
            xml += "<title>Show \(index)</title><lastBuildDate>\(build)</lastBuildDate>"
            for item in 0..<40 {
                xml += "<item><title>Episode \(item)</title><guid>s\(index)-e\(item)</guid>"
                xml += "<pubDate>\(String(format: "%02d", item % 28 + 1)) Oct 2026 08:00:00 GMT</pubDate>"
                xml += "<description><![CDATA[\(description)]]></description>"
                xml += #"<enclosure url="https://example.org/\#(index)/\#(item).mp3" length="1000" type="audio/mpeg"/></item>"#
            }
            return Data((xml + "</channel></rss>").utf8)
        }
        var outlines = ""
        for index in 0..<200 {
            server.setFile("/feeds/\(index).xml", feed(index, build: 0))
            let url = server.url("/feeds/\(index).xml")
            outlines += #"<outline type="rss" text="Show \#(index)" xmlUrl="\#(url)"/>"#
        }
        let opml = directory.appendingPathComponent("subs.opml")
        try Data(#"<?xml version="1.0"?><opml version="2.0"><body>\#(outlines)</body></opml>"#.utf8).write(to: opml)
        let podsd = try await PodsdProcess.start(directory: directory)
        #expect(await podsd.pods("import", opml.path).status == 0)
        try await podsd.client.open(uri: Fixtures.sampleMP3.absoluteString)  // a track for PlayPause
        try await podsd.client.pause()

        let environment = podsd.bus.environment
        var gets: [Double] = [], toggles: [Double] = []
        for build in 1...2 {
            for index in 0..<200 { server.setFile("/feeds/\(index).xml", feed(index, build: build)) }
            let measured = try await MPRISTiming.during(podsd.connection) {
                await Subprocess.run(Fixtures.executable("pods"), ["refresh", "--json"], environment: environment, timeout: .seconds(180))
            }
            #expect(measured.result.status == 0, "\(measured.result.stderr)")
            let results = try #require(try JSONSerialization.jsonObject(with: Data(measured.result.stdout.utf8)) as? [[String: Any]])
            // Every feed came back whole (its items unchanged: nothing added), none failed.
            #expect(results.count == 200 && results.allSatisfy { $0["error"] is NSNull && $0["notModified"] as? Bool == false })
            gets += measured.getPosition
            toggles += measured.playPause
        }
        let getP99 = MPRISTiming.percentile(gets.sorted(), 0.99)
        let toggleP99 = MPRISTiming.percentile(toggles.sorted(), 0.99)
        print("200 changed feeds refreshed twice; during it Get(Position) p99 \(getP99) ms (\(gets.count) calls), "
              + "PlayPause → PropertiesChanged p99 \(toggleP99) ms (\(toggles.count))")
        #expect(gets.count >= 20 && toggles.count >= 5)
        // As the listing test: the benchmark holds the release build to 5 ms; a debug build gets more room.
        #expect(getP99 < 25 && toggleP99 < 25, "Get(Position) p99 \(getP99) ms, PlayPause p99 \(toggleP99) ms while refreshing")
        #expect(podsd.isRunning)
        let episodes = try #require(try JSONSerialization.jsonObject(with: Data(await podsd.pods("episodes", "--json").stdout.utf8)) as? [Any])
        #expect(episodes.count == 200 * 40)
    }

    @Test func pagesStayWithinTheirBoundsWhateverIsAsked() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Titles of 100 KB: cut to 64 KB each, and a page stops at 1 MiB.
        _ = try await onOwnThread {
            try GeneratedLibrary.populate(try libraryAt(directory), podcasts: 1, episodesEach: 60, titleBytes: 100_000)
            return try GeneratedLibrary.populate(try libraryAt(directory), podcasts: 2, episodesEach: 1500, named: "Other")
        }
        let podsd = try await PodsdProcess.start(directory: directory)
        let library = LibraryClient(podsd.client)

        // An absurd limit is lowered: a page holds at most 1,000 items and 256 KiB.
        let huge = try await listEpisodes(podsd, ["podcast": .string("Other 0")], cursor: "", limit: .max)
        #expect(huge.items.count > 100 && huge.items.count <= LibraryPaging.maxItems && !huge.next.isEmpty)
        #expect(huge.itemBytes <= LibraryPaging.maxBytes, "\(huge.itemBytes) bytes of items")
        let all = try await library.episodesJSON()
        #expect(all.count == 3060 && Set(all.compactMap { $0["id"] as? Int }).count == 3060)

        let podcast = try await library.podcastsJSON().first { ($0["title"] as? String) == "Show 0" && ($0["episodeCount"] as? Int) == 60 }
        let podcastID = Int64(try #require(podcast?["id"] as? Int))
        var cursor = "", pages = 0, titles: [String] = []
        repeat {
            let page = try await listEpisodes(podsd, ["podcast": .int64(podcastID)], cursor: cursor, limit: 0)
            // At least one item a page: one with a 64 KiB title goes alone.
            #expect(page.itemBytes <= LibraryPaging.maxBytes || page.items.count == 1, "\(page.itemBytes) bytes of items")
            titles += page.items.compactMap { Self.value($0, "title")?.stringValue }
            cursor = page.next
            pages += 1
        } while !cursor.isEmpty && pages < 100
        #expect(titles.count == 60 && pages >= 4, "\(titles.count) in \(pages) pages")
        #expect(titles.allSatisfy { $0.utf8.count <= LibraryPaging.maxStringBytes && $0.utf8.count > 60_000 })

        // Beyond the end, and filters that match nothing: empty pages.
        let last = try await listEpisodes(podsd, [:], cursor: "e1.7fefffffffffffff.1", limit: 10)  // after the largest sort key
        #expect(last.items.isEmpty && last.next.isEmpty)
        #expect(try await listPage(podsd, LibraryMethod.listPodcasts, cursor: "o.5000").items.isEmpty)
        #expect(try await listPage(podsd, LibraryMethod.listQueue, cursor: "").items.isEmpty)
        for id in try await library.episodesJSON(podcast: String(podcastID)).compactMap({ $0["id"] as? Int }) {
            try await library.mark(episode: Int64(id), played: true)
        }
        #expect(try await listEpisodes(podsd, ["podcast": .int64(podcastID), "unplayed": .bool(true)], cursor: "", limit: 5).items.isEmpty)

        // `cursor+k` is the k-th page after the one at `cursor`: the same pages as asked one by one,
        // from podsd's read-ahead or built afresh; past the end, an empty page.
        var sequential: [(items: [DBusValue], next: String)] = []
        let other: [String: DBusValue] = ["podcast": .string("Other 0")]
        cursor = ""
        repeat {
            let page = try await listEpisodes(podsd, other, cursor: cursor, limit: 50)
            sequential.append((page.items, page.next))
            cursor = page.next
        } while !cursor.isEmpty && sequential.count < 100
        #expect(sequential.count == 1500 / 50)
        for (base, k) in [(0, 1), (0, 3), (5, 16), (10, 9)] {
            let cursor = base == 0 ? "" : sequential[base - 1].next
            let ahead = try await listEpisodes(podsd, other, cursor: LibraryPaging.ahead(cursor, k), limit: 50)
            #expect(ahead.items == sequential[base + k].items && ahead.next == sequential[base + k].next, "page \(base) + \(k)")
        }
        let pastTheEnd = try await listEpisodes(podsd, other, cursor: LibraryPaging.ahead(sequential[28].next, 5), limit: 50)
        #expect(pastTheEnd.items.isEmpty && pastTheEnd.next.isEmpty)
        // The second connection serves the same interface; `pods` pages there.
        let peer = try await podsd.connection.call(destination: PodsBus.name, path: LibraryNames.objectPath, interface: LibraryNames.interface,
                                                   member: LibraryMethod.listingPeer.name).first?.stringValue ?? ""
        let owner = try await podsd.connection.call(
            destination: "org.freedesktop.DBus", path: DBusObjectPath(validLiteral: "/org/freedesktop/DBus"), interface: "org.freedesktop.DBus",
            member: "GetNameOwner", arguments: [.string(PodsBus.name)]).first?.stringValue
        #expect(peer.hasPrefix(":") && owner?.hasPrefix(":") == true && peer != owner)
        let there = try await podsd.connection.call(destination: peer, path: LibraryNames.objectPath, interface: LibraryNames.interface,
                                                    member: LibraryMethod.listEpisodes.name,
                                                    arguments: [.variantDictionary(other), .string(""), .uint32(50)])
        #expect(there.first?.arrayValue == sequential[0].items)

        // Wrong input: one clear error each, and podsd goes on.
        for (arguments, errorName, words) in [
            (["cursor": DBusValue.string("page 2")], DBusError.Name.invalidArgs, "not a cursor"),
            (["cursor": DBusValue.string("+0")], DBusError.Name.invalidArgs, "not a cursor"),
            (["cursor": DBusValue.string("+17")], DBusError.Name.invalidArgs, "not a cursor"),
            (["cursor": DBusValue.string("e1.0.1+x")], DBusError.Name.invalidArgs, "not a cursor"),
            (["cursor": DBusValue.string("nope+2")], DBusError.Name.invalidArgs, "not a cursor"),
            (["filter": .variantDictionary(["podcast": .int64(999)])], LibraryNames.Error.notFound, "no podcast has id 999"),
            (["filter": .variantDictionary(["podcast": .string("Nothing")])], LibraryNames.Error.notFound, "no podcast is called Nothing"),
            (["filter": .variantDictionary(["sort": .string("title")])], DBusError.Name.invalidArgs, "no filter 'sort'"),
            (["filter": .variantDictionary(["unplayed": .string("yes")])], DBusError.Name.invalidArgs, "no filter 'unplayed' of type s"),
        ] as [([String: DBusValue], String, String)] {
            let filter = arguments["filter"] ?? .variantDictionary([:])
            let cursor = arguments["cursor"] ?? .string("")
            await #expect(throws: DBusError.self) {
                _ = try await podsd.connection.call(destination: PodsBus.name, path: LibraryNames.objectPath,
                                                    interface: LibraryNames.interface, member: LibraryMethod.listEpisodes.name,
                                                    arguments: [filter, cursor, .uint32(10)])
            }
            do {
                _ = try await podsd.connection.call(destination: PodsBus.name, path: LibraryNames.objectPath,
                                                    interface: LibraryNames.interface, member: LibraryMethod.listEpisodes.name,
                                                    arguments: [filter, cursor, .uint32(10)])
            } catch {
                #expect(error.name == errorName && error.message.contains(words), "\(error.name): \(error.message)")
            }
        }
        for (member, arguments) in [
            (LibraryMethod.listPodcasts.name, [DBusValue.string("o.-1"), .uint32(1)]),
            (LibraryMethod.listQueue.name, [.string("e1.0.1"), .uint32(1)]),
            (LibraryMethod.listEpisodes.name, [.string(""), .uint32(1)]),  // the filter left out: a wrong signature
            (LibraryMethod.episode.name, [.int64(-5)]),
        ] {
            await #expect(throws: DBusError.self, "\(member)") {
                _ = try await podsd.connection.call(destination: PodsBus.name, path: LibraryNames.objectPath,
                                                    interface: LibraryNames.interface, member: member, arguments: arguments)
            }
        }
        let missing = await podsd.pods("episode", "424242")
        #expect(missing.status == 1 && missing.stderr.contains("no episode has id 424242"))
        #expect(podsd.isRunning)
        #expect(try await library.episodesJSON(limit: 3).count == 3)
    }

    @Test func anEpisodesDetailCarriesWhatTheListLeavesOut() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try GeneratedLibrary.populate(try libraryAt(directory), podcasts: 1, episodesEach: 3, descriptionBytes: 300)
        let podsd = try await PodsdProcess.start(directory: directory)
        let shown = await podsd.pods("episode", "2", "--json")
        #expect(shown.status == 0, "\(shown.stderr)")
        let episode = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(Set(episode.keys) == Set(LibraryItems.episode.fields.map(\.name)))
        #expect((episode["description"] as? String)?.hasPrefix("Lorem ipsum") == true)
        #expect((episode["descriptionHTML"] as? String)?.hasPrefix("<p>Lorem ipsum") == true)
        #expect((episode["enclosures"] as? [[String: Any]])?.first?["type"] as? String == "audio/mpeg")
        #expect(episode["chapters"] as? [Any] != nil && episode["link"] is NSNull)
        let text = await podsd.pods("episode", "2")
        #expect(text.stdout.contains("Episode 2 of show 0") && text.stdout.contains("Lorem ipsum"))

        // A podcast by a title prefix, as an a{sv}.
        let podcast = try await podsd.connection.call(destination: PodsBus.name, path: LibraryNames.objectPath,
                                                      interface: LibraryNames.interface, member: LibraryMethod.podcast.name,
                                                      arguments: [.string("show")])
        #expect(podcast.first?.stringKeyedDictionary?["title"]?.stringValue == "Show 0")
        #expect(podcast.first?.stringKeyedDictionary?["episodeCount"]?.int64Value == 3)

        // Introspection names every item's keys.
        let xml = await podsd.run("gdbus", ["introspect", "--session", "--dest", PodsBus.name, "--object-path", "/org/pods/Library", "--xml"])
        #expect(xml.stdout.contains("org.pods.Library2") && xml.stdout.contains("org.pods.ItemKeys"))
        #expect(xml.stdout.contains("id:x title:s author:s?"))
    }

    // MARK: - Helpers

    /// A page of episodes, and the bytes its items take in the reply as it went over the bus.
    private func listEpisodes(_ podsd: PodsdProcess, _ filter: [String: DBusValue], cursor: String,
                              limit: UInt32) async throws -> (items: [DBusValue], next: String, itemBytes: Int) {
        let arguments: [DBusValue] = [.variantDictionary(filter), .string(cursor), .uint32(limit)]
        let body = try await podsd.connection.callForBody(
            destination: PodsBus.name, path: LibraryNames.objectPath, interface: LibraryNames.interface,
            member: LibraryMethod.listEpisodes.name, arguments: arguments)
        var reader = body.reader()
        let itemsType = DBusType.array(.dictionary(key: .string, value: .variant))
        let items = try reader.value(of: itemsType).arrayValue ?? []
        let itemBytes = reader.offset - 4  // the array's length word aside
        return (items, try reader.string(), itemBytes)
    }

    private func listPage(_ podsd: PodsdProcess, _ method: LibraryMethod, leading: [DBusValue] = [], cursor: String,
                          limit: UInt32 = 0) async throws -> (items: [DBusValue], next: String) {
        let reply = try await podsd.connection.call(
            destination: PodsBus.name, path: LibraryNames.objectPath, interface: LibraryNames.interface,
            member: method.name, arguments: leading + [.string(cursor), .uint32(limit)])
        return (reply.first?.arrayValue ?? [], reply.last?.stringValue ?? "?")
    }

    private static func value(_ item: DBusValue, _ key: String) -> DBusValue? { item.stringKeyedDictionary?[key] }
}
