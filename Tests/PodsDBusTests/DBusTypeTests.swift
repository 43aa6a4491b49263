import PodsDBus
import Testing

@Suite(.timeLimit(.minutes(10))) struct DBusTypeTests {
    @Test(arguments: ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "h", "v",
                      "as", "a{sv}", "a{oa{sv}}", "(oss)", "(b(oss))", "aa{sv}", "a(xs)", "a{s(ii)}"])
    func signatureRoundTrips(_ signature: String) throws {
        let type = try DBusType.parseSingle(signature)
        #expect(type.signature == signature)
    }

    @Test func parsesSequences() throws {
        #expect(try DBusType.parse("ssv") == [.string, .string, .variant])
        #expect(try DBusType.parse("") == [])
        #expect(try DBusType.parse("oxa{sv}").count == 3)
    }

    @Test(arguments: ["a", "(", "()", "a{vs}", "{ss}", "a{s}", "a{sss}", "z", "(ii", "a{ss",
                      String(repeating: "a", count: 40) + "s", String(repeating: "s", count: 256)])
    func rejectsInvalidSignatures(_ signature: String) {
        #expect(throws: DBusError.self) { try DBusType.parse(signature) }
    }

    @Test func objectPaths() {
        #expect(DBusObjectPath("/") != nil)
        #expect(DBusObjectPath("/org/mpris/MediaPlayer2") != nil)
        for bad in ["", "org", "/org/", "//", "/a//b", "/a-b", "/a.b", "/ä"] {
            #expect(DBusObjectPath(bad) == nil, "\(bad)")
        }
    }

    @Test func escapingMakesValidUniqueElements() throws {
        let base = DBusObjectPath(validLiteral: "/org/pods/episode")
        let guids = ["https://example.com/ep?id=1", "tag:x-y_z", "", "ä", "a_2d", "a-"]
        let paths = guids.map { base.appending(escaping: $0) }
        #expect(Set(paths).count == guids.count)
        for path in paths { #expect(DBusObjectPath(path.rawValue) != nil) }
        #expect(DBusObjectPath.root.appending(escaping: "a").rawValue == "/a")
    }

    @Test func names() {
        #expect(DBusNames.isValidBusName("org.mpris.MediaPlayer2.pods"))
        #expect(DBusNames.isValidBusName(":1.42"))
        #expect(!DBusNames.isValidBusName("org.mpris.MediaPlayer2.2pods"))
        #expect(DBusNames.isValidInterface("org.mpris.MediaPlayer2.Player"))
        #expect(!DBusNames.isValidInterface("org-mpris.x"))
        #expect(!DBusNames.isValidInterface("single"))
        #expect(DBusNames.isValidMember("PlayPause"))
        #expect(!DBusNames.isValidMember("9Lives"))
        #expect(!DBusNames.isValidMember("Play.Pause"))
    }

    @Test func valueAccessors() {
        let dictionary = DBusValue.variantDictionary(["a": .int64(5), "b": .stringArray(["x"])])
        #expect(dictionary.type.signature == "a{sv}")
        #expect(dictionary.stringKeyedDictionary?["a"] == .int64(5))
        #expect(DBusValue.variant(.variant(.string("x"))).stringValue == "x")
        #expect(DBusValue.uint64(.max).int64Value == nil)
        #expect(DBusValue.structure([.bool(true), .double(1)]).type.signature == "(bd)")
    }
}
