import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import Testing

@Suite struct ItemJSONTests {
    private let schema = ItemSchema("test", [
        ItemField("id", .int64), .maybe("title", .string), ItemField("at", .int64, .date), .maybe("rate", .double),
        ItemField("on", .bool), ItemField("parts", .array(.dictionary(key: .string, value: .variant)),
                                          .items(ItemSchema("part", [ItemField("n", .int32)]))),
    ])

    private func render(_ entries: [(String, DBusValue)]) throws -> (text: String, object: [String: Any]) {
        var json = ItemJSON()
        json.item(.dictionary(key: .string, value: .variant, entries.map { DBusDictionaryEntry(.string($0.0), .variant($0.1)) }), schema)
        let text = String(decoding: json.bytes, as: UTF8.self)
        return (text, try #require(try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any]))
    }

    @Test func everyKeyInSchemaOrderWithNullsForThoseLeftOut() throws {
        let (text, object) = try render([("id", .int64(7)), ("at", .int64(1_714_550_400)), ("on", .bool(true))])
        #expect(text == #"{"id":7,"title":null,"at":"2024-05-01T08:00:00Z","rate":null,"on":true,"parts":[]}"#)
        #expect(object.count == 6)
    }

    @Test func keysInAnotherOrderAndUnknownKeysStillRenderRight() throws {
        let (_, object) = try render([("on", .bool(false)), ("extra", .string("x")), ("title", .string("T")), ("id", .int64(1)),
                                      ("at", .int64(0)), ("parts", .array(.dictionary(key: .string, value: .variant), [
                                          .variantDictionary(["n": .int32(3)]),
                                      ]))])
        #expect(object["id"] as? Int == 1 && object["title"] as? String == "T" && object["on"] as? Bool == false)
        #expect(object["at"] as? String == "1970-01-01T00:00:00Z")
        #expect((object["parts"] as? [[String: Any]])?.first?["n"] as? Int == 3)
        #expect(object["extra"] == nil)
    }

    @Test func stringsAreEscapedAsRFC8259AsksAndNoMore() throws {
        let hostile = "quote \" backslash \\ newline \n tab \t bell \u{7} slash / é 🎧"
        let (text, object) = try render([("id", .int64(1)), ("title", .string(hostile)), ("at", .int64(0)), ("on", .bool(true))])
        #expect(object["title"] as? String == hostile)
        #expect(text.contains(#"\u0007"#) && text.contains("slash / é 🎧"))
    }

    @Test func numbersAndDates() throws {
        let (text, _) = try render([("id", .int64(-3)), ("at", .int64(-1)), ("rate", .double(1.5)), ("on", .bool(true))])
        #expect(text.contains(#""rate":1.5"#) && text.contains(#""at":"1969-12-31T23:59:59Z""#))
        let (whole, _) = try render([("id", .int64(1)), ("at", .int64(0)), ("rate", .double(36)), ("on", .bool(true))])
        #expect(whole.contains(#""rate":36,"#))
        let (nan, _) = try render([("id", .int64(1)), ("at", .int64(0)), ("rate", .double(.nan)), ("on", .bool(true))])
        #expect(nan.contains(#""rate":null"#))
    }

    @Test func itemSchemasListTheirKeysForIntrospection() {
        #expect(LibraryItems.podcast.keySummary.hasPrefix("id:x title:s author:s? feedURL:s"))
        #expect(LibraryItems.episode.keySummary.contains("enclosures:aa{sv}<enclosure>"))
        #expect(LibraryItems.episodeSummary.fields.allSatisfy { $0.name != "description" })
    }
}
