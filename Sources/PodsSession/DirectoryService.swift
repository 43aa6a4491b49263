import PodsDirectory
import PodsHTTP
import PodsSettings

/// `pods search` and Apple podcast links, with the directories the
/// settings name: iTunes always, Podcast Index when a key and secret are set.
package struct DirectoryService: Sendable {
    package let preferences: PreferenceStore
    private let http: HTTPClient

    package init(preferences: PreferenceStore) {
        self.preferences = preferences
        self.http = HTTPClient(maximumBytes: 4 << 20, deadline: .seconds(20))
    }

    private var iTunes: ITunesDirectory {
        ITunesDirectory(baseURL: preferences.value(.searchITunesURL, podcast: nil).textValue ?? "", http: http)
    }

    /// Podcast Index, when its key and secret are set.
    private var podcastIndex: PodcastIndexDirectory? {
        let key = preferences.value(.podcastIndexKey, podcast: nil).textValue ?? ""
        let secret = preferences.value(.podcastIndexSecret, podcast: nil).textValue ?? ""
        guard !key.isEmpty, !secret.isEmpty else { return nil }
        return PodcastIndexDirectory(baseURL: preferences.value(.searchPodcastIndexURL, podcast: nil).textValue ?? "", key: key,
                                     secret: secret, http: http)
    }

    /// The prefix that names a show by its `podcast:guid` (`pods subscribe guid:…`, as a podroll names shows).
    package static let guidPrefix = "guid:"

    /// The feed of a show named by its `podcast:guid` (`guid:917393e3-…`), as
    /// Podcast Index knows it; nil for text that is no such name.
    package func feedURL(ofGuid text: String) async throws(SessionError) -> String? {
        guard text.lowercased().hasPrefix(Self.guidPrefix) else { return nil }
        let guid = text.dropFirst(Self.guidPrefix.count).trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(guid.count), guid.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            throw SessionError.invalidArgument("guid: takes a podcast:guid such as 917393e3-1b1e-5cef-ace4-edaa54e1f810")
        }
        guard let index = podcastIndex else {
            throw SessionError.failed("a show named only by its podcast:guid is found through Podcast Index: "
                                      + "set podcastindex-key and podcastindex-secret (free at api.podcastindex.org)")
        }
        let feed: String?
        do throws(DirectoryError) { feed = try await index.feedURL(ofGuid: guid) } catch { throw SessionError.failed(error.message) }
        guard let feed else { throw SessionError.failed("Podcast Index knows no feed with podcast:guid \(guid)") }
        return feed
    }

    /// Both directories at once, merged; one failing leaves the other's
    /// results, both failing is one error naming both.
    package func search(_ term: String, limit: Int) async throws(SessionError) -> [DirectoryResult] {
        let trimmed = term.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 200 else { throw SessionError.invalidArgument("Search for 1 to 200 characters") }
        let index = podcastIndex
        let iTunes = iTunes
        async let fromITunes = Self.outcome { () throws(DirectoryError) in try await iTunes.search(trimmed, limit: limit) }
        async let fromIndex = Self.outcome { () throws(DirectoryError) in try await index?.search(trimmed, limit: limit) ?? [] }
        let outcomes = index == nil ? [await fromITunes] : [await fromITunes, await fromIndex]
        let lists = outcomes.compactMap { try? $0.get() }
        guard !lists.isEmpty else {
            throw SessionError.failed(outcomes.compactMap { outcome -> String? in
                if case .failure(let error) = outcome { error.message } else { nil }
            }.joined(separator: "; "))
        }
        return DirectorySearch.merge(lists, limit: limit)
    }

    /// The feed of an Apple podcast link (`podcasts.apple.com/…/id123`); nil
    /// for a URL that is no such link.
    package func feedURL(ofAppleLink link: String) async throws(SessionError) -> String? {
        guard let id = ITunesDirectory.podcastID(inLink: link) else { return nil }
        let feed: String?
        do throws(DirectoryError) { feed = try await iTunes.feedURL(ofPodcast: id) } catch { throw SessionError.failed(error.message) }
        guard let feed else { throw SessionError.failed("Apple lists no feed for this podcast (id \(id)), so Pods cannot subscribe to it") }
        return feed
    }

    private static func outcome(_ body: () async throws(DirectoryError) -> [DirectoryResult]) async -> Result<[DirectoryResult], DirectoryError> {
        do throws(DirectoryError) { return .success(try await body()) } catch { return .failure(error) }
    }
}
