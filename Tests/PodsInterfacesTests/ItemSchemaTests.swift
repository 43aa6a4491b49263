import Foundation
import PodsChapters
import PodsDBus
import PodsDirectory
import PodsFeedParser
@testable import PodsInterfaces
@testable import PodsLibrary
@testable import PodsPlayer
import PodsProtocol
@testable import PodsSession
import PodsSettings
import PodsTranscripts
import Testing

/// Every item podsd sends is written through its `ItemSchema`: the encoder
/// writes exactly the schema's keys, each with its declared type, never
/// leaves a required one out, and fills nested items of the nested
/// schema. `pods --json` prints from the same schemas and introspection
/// names them, so a key the encoder and the schema spell apart would be a
/// `null` in every script's output. One case per schema; each sample
/// leaves the optional values out and holds one of each nested item.
@Suite struct ItemSchemaTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let schema: ItemSchema
        let make: @Sendable () -> ItemBuilder
        var testDescription: String { schema.name }
    }

    private static let date = Date(timeIntervalSince1970: 1_700_000_000)

    /// Chapters and people are made as the library reads them back.
    private static func decoded<T: Decodable>(_ json: String) -> [T] {
        (try? JSONDecoder().decode([T].self, from: Data(json.utf8))) ?? []
    }

    private static var host: [Person] { decoded(#"[{"name": "Host"}]"#) }

    private static var episode: LibraryEpisode {
        var episode = Episode()
        episode.guid = "g"
        episode.title = "Episode"
        episode.enclosures = [Enclosure(url: "https://example.com/e.mp3", type: nil, length: nil)]
        episode.chapters = decoded(#"[{"start": 0, "title": "Start"}]"#)
        episode.persons = host
        episode.soundbites = [Soundbite(start: 1, duration: 10, title: nil)]
        return LibraryEpisode(id: 3, podcastId: 2, episode: episode)
    }

    private static var podcast: Podcast {
        var podcast = Podcast(id: 2, feedURL: "https://example.com/feed", title: "Show", author: nil, description: nil, artworkURL: nil,
                              link: nil, language: nil, subscribedAt: date, etag: nil, lastModified: nil, lastRefreshedAt: nil,
                              lastError: nil)
        podcast.details.funding = [Funding(url: "https://example.com/give", text: nil)]
        podcast.details.persons = host
        podcast.details.trailers = [Trailer(url: "https://example.com/t.mp3", title: "Trailer")]
        podcast.details.podroll = [RemoteItem(feedGuid: "guid", feedURL: nil)]
        return podcast
    }

    static let cases: [Case] = [
        Case(schema: LibraryItems.podcast) { LibraryItemEncoding.podcast(podcast) },
        Case(schema: LibraryItems.episodeSummary) { LibraryItemEncoding.summary(episode.summary) },
        Case(schema: LibraryItems.episode) { LibraryItemEncoding.episode(episode) },
        Case(schema: LibraryItems.directoryResult) {
            LibraryItemEncoding.directoryResult(DirectoryResult(title: "Show", author: nil, feedURL: "https://example.com/feed", artworkURL: nil,
                                                                episodeCount: nil, source: "itunes"))
        },
        Case(schema: LibraryItems.cue) { LibraryItemEncoding.cue(TranscriptCue(text: "Hello")) },
        Case(schema: LibraryItems.refreshResult) { LibraryItemEncoding.refreshResult(RefreshSummary(podcastId: 2, title: "Show")) },
        Case(schema: LibraryItems.importResult) { LibraryItemEncoding.importResult(url: "https://example.com/feed", podcastId: nil, error: nil) },
        Case(schema: LibraryItems.download) {
            LibraryItemEncoding.download(DownloadInfo(episodeId: 3, podcastId: 2, title: "Episode", podcastTitle: "Show", state: "downloaded",
                                                      bytes: 10, size: 10, pinned: false, path: "/tmp/e.mp3", error: nil, loudness: nil))
        },
        Case(schema: LibraryItems.searchHit) {
            LibraryItemEncoding.searchHit(SearchHit(episodeId: 3, episodeTitle: "Episode", podcastTitle: "Show", kind: "title", at: nil,
                                                    snippet: "[Episode]"))
        },
        Case(schema: LibraryItems.bookmark) {
            LibraryItemEncoding.bookmark(Bookmark(id: 1, episodeId: 3, position: 12, note: "", cue: nil, createdAt: date,
                                                  episodeTitle: "Episode", podcastTitle: "Show"))
        },
        Case(schema: LibraryItems.playlist) {
            LibraryItemEncoding.playlist(EpisodePlaylist(id: 1, name: "Short", rules: PlaylistRules(podcasts: [2]), count: 4,
                                                         firstPodcastId: nil, createdAt: date, modifiedAt: date, playedAt: nil), active: true)
        },
        Case(schema: LibraryItems.playSession) {
            LibraryItemEncoding.playSession(PlaySession(episodeId: 3, podcastId: 2, episodeTitle: "Episode", podcastTitle: "Show", startedAt: date,
                                                        seconds: 60, from: 0, to: 90, rate: 1.5))
        },
        Case(schema: LibraryItems.listeningStats) {
            var stats = ListeningStats()
            stats.podcasts = [ListeningStats.Share(name: "Show", podcastId: nil, seconds: 60, saved: 30)]
            stats.weeks = stats.podcasts
            return LibraryItemEncoding.listeningStats(stats)
        },
        Case(schema: LibraryItems.storage) {
            LibraryItemEncoding.storage(StorageInfo(bytes: 10, downloadedBytes: 5, budget: 100, episodes: 1))
        },
        Case(schema: LibraryItems.cacheStatus) { LibraryItemEncoding.cacheStatus(episodeID: nil, buffering: false, cached: nil) },
        Case(schema: LibraryItems.syncResult) { LibraryItemEncoding.syncResult(SyncResult()) },
        Case(schema: LibraryItems.syncStatus) {
            var account = SyncAccount(server: "https://sync.example.com", user: "me", device: "pods", api: "gpodder")
            account.lastResult = #"{"uploaded":1,"applied":0,"subscribed":0,"unsubscribed":0,"skipped":0,"queued":0}"#
            return LibraryItemEncoding.syncStatus(account, queued: 0)
        },
        Case(schema: PlayerItems.chapter) {
            PlayerItemEncoding.chapter(EpisodeChapter(start: 0, title: "Start", source: .json), index: 1, skipped: false)
        },
        Case(schema: PlayerItems.setting) {  // a secret: every key written, its value never
            let item = PlayerItemEncoding.setting(SettingEntry(key: .podcastIndexSecret, value: .text("hunter2"), source: "config"))
            #expect(item.value.stringKeyedDictionary?["value"]?.stringValue == "(set)")
            return item
        },
        Case(schema: PlayerItems.extras) {
            var state = PlayerState()
            state.chapter = PlayingChapter(index: 1, title: "Start", start: 0)
            return PlayerItemEncoding.extras(state, sleep: (mode: "time", remaining: nil), silenceSkipped: 0, loudnessGain: nil)
        },
    ]

    @Test(arguments: cases) func theEncoderWritesExactlyItsSchema(_ item: Case) {
        let builder = item.make()
        #expect(builder.schema.name == item.schema.name)
        #expect(builder.mismatches.isEmpty, "\(builder.mismatches)")
        // Each nested key holds an item, so its schema was checked too.
        let values = builder.value.stringKeyedDictionary ?? [:]
        for field in item.schema.fields where field.form.nestedSchema != nil {
            let value = values[field.name]
            #expect(value?.stringKeyedDictionary != nil || value?.arrayValue?.isEmpty == false, "\(item.schema.name).\(field.name)")
        }
    }

    /// Every schema is held by a case here, the nested ones through the
    /// items that hold them: a new schema without an encoder checked fails.
    @Test func everySchemaIsChecked() {
        var checked = Set<String>()
        func add(_ schema: ItemSchema) {
            guard checked.insert(schema.name).inserted else { return }
            for field in schema.fields { if let nested = field.form.nestedSchema { add(nested) } }
        }
        for item in Self.cases { add(item.schema) }
        let every: [ItemSchema] = [
            LibraryItems.podcast, LibraryItems.funding, LibraryItems.trailer, LibraryItems.remoteItem, LibraryItems.soundbite,
            LibraryItems.episodeSummary, LibraryItems.episode, LibraryItems.enclosure, LibraryItems.chapter, LibraryItems.cue,
            LibraryItems.person, LibraryItems.refreshResult, LibraryItems.searchHit, LibraryItems.directoryResult,
            LibraryItems.importResult, LibraryItems.download, LibraryItems.bookmark, LibraryItems.playlistRules, LibraryItems.playlist,
            LibraryItems.playSession, LibraryItems.listeningShare, LibraryItems.listeningStats, LibraryItems.storage,
            LibraryItems.cacheStatus, LibraryItems.syncResult, LibraryItems.syncStatus, PlayerItems.chapter, PlayerItems.setting,
            PlayerItems.currentChapter, PlayerItems.sleep, PlayerItems.extras,
        ]
        #expect(Set(every.map(\.name)).subtracting(checked).isEmpty, "\(Set(every.map(\.name)).subtracting(checked))")
    }

    /// The check itself can fail: a key the schema lacks, one of another
    /// type, a required one left out and one never written are each named.
    @Test func aMismatchIsNamed() {
        let schema = ItemSchema("sample", [ItemField("id", .int64), ItemField("title", .string), .maybe("note", .string)])
        var item = ItemBuilder(schema)
        item.set("id", 3)  // an Int: written as i, declared x
        item.set("title", String?.none)
        item.set("extra", true)
        #expect(Set(item.mismatches) == [
            "sample.id is written as i, declared x", "sample.title is required but was left out", "sample.extra is not in the schema",
            "sample.note is never written",
        ])
    }
}
