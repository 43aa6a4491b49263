import Foundation
import PodsClient
import PodsDBus
import PodsProtocol

/// The library's items as `pods … --json` prints them, for tests that
/// check the JSON contract: rendered with the CLI's writer, read back with
/// JSONSerialization.
extension LibraryClient {
    public func episodesJSON(podcast: String? = nil, unplayedOnly: Bool = false, limit: Int? = nil) async throws -> [[String: Any]] {
        var items: [DBusValue] = []
        try await episodes(podcast: podcast, unplayedOnly: unplayedOnly, limit: limit) { items += $0 }
        return try Self.objects(items, LibraryItems.episodeSummary)
    }

    public func podcastsJSON() async throws -> [[String: Any]] {
        var items: [DBusValue] = []
        try await podcasts { items += $0 }
        return try Self.objects(items, LibraryItems.podcast)
    }

    public func queueJSON() async throws -> [[String: Any]] {
        var items: [DBusValue] = []
        try await queue { items += $0 }
        return try Self.objects(items, LibraryItems.episodeSummary)
    }

    public func refreshJSON(podcast: String? = nil) async throws -> [[String: Any]] {
        try Self.objects(try await refresh(podcast: podcast), LibraryItems.refreshResult)
    }

    public func subscribeJSON(_ url: String) async throws -> [String: Any] {
        try Self.object(try await subscribe(url), LibraryItems.podcast)
    }

    /// Items rendered as the CLI renders them, parsed back.
    public static func objects(_ items: [DBusValue], _ schema: ItemSchema) throws -> [[String: Any]] {
        var json = ItemJSON()
        json.items(items, schema)
        return try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [[String: Any]] ?? []
    }

    public static func object(_ item: DBusValue, _ schema: ItemSchema) throws -> [String: Any] {
        var json = ItemJSON()
        json.item(item, schema)
        return try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any] ?? [:]
    }
}
