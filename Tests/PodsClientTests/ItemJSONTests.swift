import Foundation
@testable import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Testing

@Suite(.timeLimit(.minutes(10))) struct ItemJSONTests {
    private let schema = ItemSchema("test", [
        ItemField("id", .int64), .maybe("title", .string), ItemField("at", .int64, .date), .maybe("rate", .double),
        ItemField("on", .bool), ItemField("parts", .array(.dictionary(key: .string, value: .variant)),
                                          .items(ItemSchema("part", [ItemField("n", .int32)]))),
    ])

    /// The item as JSON, from its `DBusValue`; the same item read straight
    /// from a reply's bytes (the way `pods episodes --json` reads pages)
    /// must come out byte for byte the same.
    private func render(_ entries: [(String, DBusValue)], sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> (text: String, object: [String: Any]) {
        let item = DBusValue.dictionary(key: .string, value: .variant, entries.map { DBusDictionaryEntry(.string($0.0), .variant($0.1)) })
        var json = ItemJSON()
        json.item(item, schema)
        let text = String(decoding: json.bytes, as: UTF8.self)
        let fromWire = try await Self.renderFromWire([item, item], schema)
        #expect(fromWire == "[\(text),\(text)]", sourceLocation: sourceLocation)
        return (text, try #require(try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any]))
    }

    /// `items` sent to a service on a private bus that answers them as a
    /// page (`aa{sv}`, `s next`), read with `ItemJSON.items(_:_:first:)`.
    static func renderFromWire(_ items: [DBusValue], _ schema: ItemSchema) async throws -> String {
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let service = try await DBusConnection.connect(address: bus.address)
        let client = try await DBusConnection.connect(address: bus.address)
        defer { service.close(); client.close() }
        let list = DBusType.array(.dictionary(key: .string, value: .variant))
        let path = DBusObjectPath(validLiteral: "/test/Pages")
        service.exportStandIn(DBusExportedObject(path: path, interfaces: [DBusInterface(name: "org.pods.Test.Pages", methods: [
            DBusMethod("Page", inputs: [DBusArgument("items", list)], outputs: [DBusArgument("items", list), DBusArgument("next", .string)]) {
                [$0[0], .string("")]
            },
        ])]))
        _ = try await service.requestName("org.pods.Test")
        let body = try await client.callForBody(destination: "org.pods.Test", path: path, interface: "org.pods.Test.Pages", member: "Page",
                                                arguments: [.array(.dictionary(key: .string, value: .variant), items)])
        let (count, next) = try ItemPage.countAndNext(body)
        #expect(count == items.count && next == "")
        var json = ItemJSON()
        var first = true
        json.raw("[")
        try json.items(ItemPage(body: body, count: count), schema, first: &first)
        json.raw("]")
        return String(decoding: json.bytes, as: UTF8.self)
    }

    @Test func everyKeyInSchemaOrderWithNullsForThoseLeftOut() async throws {
        let (text, object) = try await render([("id", .int64(7)), ("at", .int64(1_714_550_400)), ("on", .bool(true))])
        #expect(text == #"{"id":7,"title":null,"at":"2024-05-01T08:00:00Z","rate":null,"on":true,"parts":[]}"#)
        #expect(object.count == 6)
    }

    @Test func keysInAnotherOrderAndUnknownKeysStillRenderRight() async throws {
        let (_, object) = try await render([("on", .bool(false)), ("extra", .string("x")), ("title", .string("T")), ("id", .int64(1)),
                                      ("at", .int64(0)), ("parts", .array(.dictionary(key: .string, value: .variant), [
                                          .variantDictionary(["n": .int32(3)]),
                                      ]))])
        #expect(object["id"] as? Int == 1 && object["title"] as? String == "T" && object["on"] as? Bool == false)
        #expect(object["at"] as? String == "1970-01-01T00:00:00Z")
        #expect((object["parts"] as? [[String: Any]])?.first?["n"] as? Int == 3)
        #expect(object["extra"] == nil)
    }

    @Test func nestedItemsInSchemaOrder() async throws {
        let (text, _) = try await render([("id", .int64(2)), ("title", .string("T")), ("at", .int64(0)), ("on", .bool(false)),
                                          ("parts", .array(.dictionary(key: .string, value: .variant), [
                                              .variantDictionary(["n": .int32(3)]), .variantDictionary([:]),
                                          ]))])
        #expect(text.hasSuffix(#""parts":[{"n":3},{"n":null}]}"#))
    }

    @Test func stringsAreEscapedAsRFC8259AsksAndNoMore() async throws {
        let hostile = "quote \" backslash \\ newline \n tab \t bell \u{7} slash / é 🎧"
        let (text, object) = try await render([("id", .int64(1)), ("title", .string(hostile)), ("at", .int64(0)), ("on", .bool(true))])
        #expect(object["title"] as? String == hostile)
        #expect(text.contains(#"\u0007"#) && text.contains("slash / é 🎧"))
    }

    @Test func numbersAndDates() async throws {
        let (text, _) = try await render([("id", .int64(-3)), ("at", .int64(-1)), ("rate", .double(1.5)), ("on", .bool(true))])
        #expect(text.contains(#""rate":1.5"#) && text.contains(#""at":"1969-12-31T23:59:59Z""#))
        let (whole, _) = try await render([("id", .int64(1)), ("at", .int64(0)), ("rate", .double(36)), ("on", .bool(true))])
        #expect(whole.contains(#""rate":36,"#))
        let (nan, _) = try await render([("id", .int64(1)), ("at", .int64(0)), ("rate", .double(.nan)), ("on", .bool(true))])
        #expect(nan.contains(#""rate":null"#))
    }

    @Test func itemSchemasListTheirKeysForIntrospection() {
        #expect(LibraryItems.podcast.keySummary.hasPrefix("id:x title:s author:s? feedURL:s"))
        #expect(LibraryItems.episode.keySummary.contains("enclosures:aa{sv}<enclosure>"))
        #expect(LibraryItems.episodeSummary.fields.allSatisfy { $0.name != "description" })
    }
}
