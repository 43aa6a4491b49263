import Foundation
import PodsDBus
import PodsTestSupport
import Synchronization
import Testing

/// The echo object's writable property, shared with the test.
private final class StoredLevel: Sendable {
    let value = Mutex(0.5)
    /// How the `Stuck` handler ended: "cancelled" or "finished".
    let stuckEnded = Mutex<String?>(nil)
    /// `Held` answers once this is false (or after 30 s).
    let holding = Mutex(true)
}

/// A service and a client on one private bus: an echo object with a
/// read-only and a writable property and a slow method.
private struct EchoFixture {
    let bus: PrivateBus
    let service: DBusConnection
    let client: DBusConnection
    let stored: StoredLevel
    static let path = DBusObjectPath(validLiteral: "/test/Echo")
    static let interface = "org.pods.Test.Echo"

    init() async throws {
        bus = try await PrivateBus.start()
        service = try await DBusConnection.connect(address: bus.address)
        client = try await DBusConnection.connect(address: bus.address)
        let stored = StoredLevel()
        self.stored = stored
        service.exportStandIn(DBusExportedObject(path: Self.path, interfaces: [DBusInterface(
            name: Self.interface,
            methods: [
                DBusMethod("Echo", inputs: [DBusArgument("value", .variant)], outputs: [DBusArgument("value", .variant)]) { $0 },
                DBusMethod("Add", inputs: [DBusArgument("a", .int32), DBusArgument("b", .int32)],
                           outputs: [DBusArgument("sum", .int32)]) { arguments in
                    [.int32(Int32(arguments[0].int64Value ?? 0) &+ Int32(arguments[1].int64Value ?? 0))]
                },
                DBusMethod("Slow") { _ in
                    try await Task.sleep(for: .seconds(3))
                    return []
                },
                // As slow as the test needs, whatever the load on the machine.
                DBusMethod("Held") { _ in
                    let deadline = ContinuousClock.now + .seconds(30)
                    while stored.holding.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
                    return []
                },
                // Its callers wait 500 ms (a method's stated timeout); it would take a minute.
                DBusMethod("Stuck", timeout: .milliseconds(500)) { _ in
                    do {
                        try await Task.sleep(for: .seconds(60))
                        stored.stuckEnded.withLock { $0 = "finished" }
                    } catch {
                        stored.stuckEnded.withLock { $0 = "cancelled" }
                    }
                    return []
                },
                DBusMethod("Fail") { _ in throw DBusError(name: "org.pods.Test.Error.Nope", message: "nope") },
            ],
            properties: [
                DBusProperty("Name", .string, get: { .string("echo") }),
                DBusProperty("Level", .double, get: { .double(stored.value.withLock { $0 }) }, set: { value in
                    stored.value.withLock { $0 = value.doubleValue ?? 0 }
                }),
            ],
            signals: [DBusSignalDescription("Ping", arguments: [DBusArgument("n", .uint32)])])]))
        _ = try await service.requestName("org.pods.Test")
    }

    func call(_ interface: String, _ member: String, _ arguments: [DBusValue] = [],
              timeout: Duration = .seconds(5)) async throws(DBusError) -> [DBusValue] {
        try await client.call(destination: "org.pods.Test", path: Self.path, interface: interface, member: member,
                              arguments: arguments, timeout: timeout)
    }

    func expectError(_ name: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
                     sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            _ = try await call(interface, member, arguments)
            Issue.record("\(member) succeeded; expected \(name)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.name == name, sourceLocation: sourceLocation)
        }
    }
}

@Suite(.timeLimit(.minutes(10))) struct DBusConnectionTests {
    static let everyType: [DBusValue] = [
        .byte(255), .bool(true), .bool(false), .int16(-32768), .uint16(65535), .int32(-7), .uint32(.max),
        .int64(.min), .uint64(.max), .double(-1.5e300), .string(""), .string("héllo ✓"),
        .objectPath(DBusObjectPath(validLiteral: "/org/pods/track/1")), .signature("a{sv}"),
        .array(.string, []), .stringArray(["a", "b"]), .array(.int64, [.int64(1), .int64(-1)]),
        .variantDictionary(["title": .string("x"), "length": .int64(90_000_000), "artist": .stringArray(["Pods"])]),
        .dictionary(key: .uint32, value: .string, [DBusDictionaryEntry(.uint32(1), .string("one"))]),
        .structure([.objectPath(DBusObjectPath(validLiteral: "/p")), .string("name"), .string("icon")]),
        .structure([.bool(true), .structure([.int32(1), .array(.double, [.double(0.5)])])]),
        .variant(.variant(.int32(3))),
        .array(.dictionary(key: .string, value: .variant), [.variantDictionary([:]), .variantDictionary(["k": .bool(true)])]),
    ]

    @Test func everyTypeRoundTripsThroughTheBus() async throws {
        let fixture = try await EchoFixture()
        for value in Self.everyType {
            let reply = try await fixture.call(EchoFixture.interface, "Echo", [.variant(value)])
            #expect(reply == [.variant(value)], "\(value.type.signature)")
        }
    }

    @Test func everyTypeReadsTheSameFromTheWire() async throws {
        let fixture = try await EchoFixture()
        for value in Self.everyType where value.type != .unixFD {
            let body = try await fixture.client.callForBody(destination: "org.pods.Test", path: EchoFixture.path,
                                                            interface: EchoFixture.interface, member: "Echo", arguments: [.variant(value)])
            #expect(body.signature == "v")
            var reader = body.reader()
            #expect(try reader.value(of: .variant) == .variant(value), "\(value.type.signature)")
            #expect(reader.isAtEnd)
        }
        // A body cut short is an error, never a trap.
        let body = try await fixture.client.callForBody(destination: "org.pods.Test", path: EchoFixture.path, interface: EchoFixture.interface,
                                                        member: "Echo", arguments: [.variant(.stringArray(["one", "two", "three"]))])
        for length in 0..<body.bytes.count {
            var reader = DBusWireReader(body: Array(body.bytes.prefix(length)))
            #expect(throws: DBusError.self) { _ = try reader.value(of: .variant) }
        }
    }

    @Test func methodsAndErrors() async throws {
        let fixture = try await EchoFixture()
        #expect(try await fixture.call(EchoFixture.interface, "Add", [.int32(2), .int32(40)]) == [.int32(42)])
        await fixture.expectError("org.freedesktop.DBus.Error.InvalidArgs", EchoFixture.interface, "Add", [.int32(2)])
        await fixture.expectError("org.freedesktop.DBus.Error.InvalidArgs", EchoFixture.interface, "Add", [.string("2"), .int32(1)])
        await fixture.expectError("org.freedesktop.DBus.Error.UnknownMethod", EchoFixture.interface, "Nope")
        await fixture.expectError("org.freedesktop.DBus.Error.UnknownInterface", "org.pods.Test.Other", "Add")
        await fixture.expectError("org.pods.Test.Error.Nope", EchoFixture.interface, "Fail")
        do {
            _ = try await fixture.client.call(destination: "org.pods.Test", path: DBusObjectPath(validLiteral: "/nowhere"),
                                              interface: EchoFixture.interface, member: "Add")
            Issue.record("call on an unknown path succeeded")
        } catch {
            #expect(error.name == "org.freedesktop.DBus.Error.UnknownObject")
        }
    }

    @Test func properties() async throws {
        let fixture = try await EchoFixture()
        let properties = "org.freedesktop.DBus.Properties"
        #expect(try await fixture.call(properties, "Get", [.string(EchoFixture.interface), .string("Name")]) == [.variant(.string("echo"))])
        _ = try await fixture.call(properties, "Set", [.string(EchoFixture.interface), .string("Level"), .variant(.double(0.25))])
        #expect(fixture.stored.value.withLock { $0 } == 0.25)
        let all = try await fixture.call(properties, "GetAll", [.string(EchoFixture.interface)])
        #expect(all.first?.stringKeyedDictionary == ["Name": .string("echo"), "Level": .double(0.25)])
        await fixture.expectError("org.freedesktop.DBus.Error.PropertyReadOnly", properties, "Set",
                                  [.string(EchoFixture.interface), .string("Name"), .variant(.string("x"))])
        await fixture.expectError("org.freedesktop.DBus.Error.InvalidArgs", properties, "Set",
                                  [.string(EchoFixture.interface), .string("Level"), .variant(.string("loud"))])
        await fixture.expectError("org.freedesktop.DBus.Error.UnknownProperty", properties, "Get",
                                  [.string(EchoFixture.interface), .string("Nope")])
        await fixture.expectError("org.freedesktop.DBus.Error.UnknownInterface", properties, "GetAll", [.string("org.nope.X")])
        await fixture.expectError("org.freedesktop.DBus.Error.InvalidArgs", properties, "Get", [.string(EchoFixture.interface)])
        #expect(fixture.stored.value.withLock { $0 } == 0.25)
    }

    @Test func aSnapshotAnswersGetOneValueAtATimeAndGetAllWhole() async throws {
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let service = try await DBusConnection.connect(address: bus.address)
        let client = try await DBusConnection.connect(address: bus.address)
        defer { service.close(); client.close() }
        let reads = Mutex((whole: 0, single: [String]()))
        let values: [String: DBusValue] = ["Position": .int64(7), "Metadata": .variantDictionary(["title": .string("t")])]
        let path = DBusObjectPath(validLiteral: "/test/Snapshot")
        service.exportStandIn(DBusExportedObject(path: path, interfaces: [DBusInterface(
            name: "org.pods.Test.Snapshot",
            properties: [DBusProperty("Position", .int64, get: { .int64(0) }),
                         DBusProperty("Metadata", .dictionary(key: .string, value: .variant), get: { .variantDictionary([:]) })],
            snapshot: {
                reads.withLock { $0.whole += 1 }
                return values
            },
            snapshotValue: { name in
                reads.withLock { $0.single.append(name) }
                return values[name]
            })]))
        _ = try await service.requestName("org.pods.Test")
        func call(_ member: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
            try await client.call(destination: "org.pods.Test", path: path, interface: "org.freedesktop.DBus.Properties",
                                  member: member, arguments: arguments)
        }
        #expect(try await call("Get", [.string("org.pods.Test.Snapshot"), .string("Position")]) == [.variant(.int64(7))])
        #expect(reads.withLock { $0.whole } == 0)
        #expect(reads.withLock { $0.single } == ["Position"])
        #expect(try await call("GetAll", [.string("org.pods.Test.Snapshot")]).first?.stringKeyedDictionary == values)
        #expect(reads.withLock { $0.whole } == 1)
        do {
            _ = try await call("Get", [.string("org.pods.Test.Snapshot"), .string("Nope")])
            Issue.record("Get of a property the interface does not have succeeded")
        } catch let error as DBusError {
            #expect(error.name == "org.freedesktop.DBus.Error.UnknownProperty")
        }
        #expect(reads.withLock { $0.single } == ["Position"])
    }

    @Test func introspectionAndPeer() async throws {
        let fixture = try await EchoFixture()
        let xml = try await fixture.call("org.freedesktop.DBus.Introspectable", "Introspect").first?.stringValue ?? ""
        #expect(xml.contains("<interface name=\"org.pods.Test.Echo\">"))
        #expect(xml.contains("<arg name=\"a\" type=\"i\" direction=\"in\"/>"))
        #expect(xml.contains("<property name=\"Level\" type=\"d\" access=\"readwrite\"/>"))
        #expect(xml.contains("<signal name=\"Ping\">"))
        let root = try await fixture.client.call(destination: "org.pods.Test", path: .root,
                                                 interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
        #expect(root.first?.stringValue?.contains("<node name=\"test\"/>") == true)
        #expect(try await fixture.call("org.freedesktop.DBus.Peer", "Ping") == [])
        let machine = try await fixture.call("org.freedesktop.DBus.Peer", "GetMachineId").first?.stringValue ?? ""
        #expect(machine.count == 32)
    }

    @Test func callsTimeOut() async throws {
        let fixture = try await EchoFixture()
        do {
            _ = try await fixture.call(EchoFixture.interface, "Slow", timeout: .milliseconds(300))
            Issue.record("Slow answered within 300 ms")
        } catch {
            // NoReply proves the 300 ms timeout fired before Slow's answer (at 3 s) came; how long
            // after 300 ms depends on how busy the machine is, so no wall-clock bound here.
            #expect(error.name == DBusError.Name.noReply)
        }
        // The service still answers (after Slow: this sender's calls run in order).
        #expect(try await fixture.call(EchoFixture.interface, "Add", [.int32(1), .int32(1)], timeout: .seconds(60)) == [.int32(2)])
    }

    /// One sender's calls waiting behind a slow one are bounded: past the
    /// bound they are refused at once, and the ones taken are all answered.
    @Test func aSendersWaitingCallsAreBounded() async throws {
        let fixture = try await EchoFixture()
        let calls = 1200
        // Held waits, Held's among the bound's 1024: the rest are refused, then Held is let go.
        let refusals = calls - (1024 - 1)
        let outcomes = await withTaskGroup(of: String.self) { group in
            group.addTask { (try? await fixture.call(EchoFixture.interface, "Held", timeout: .seconds(60))) == nil ? "slow failed" : "slow" }
            try? await Task.sleep(for: .milliseconds(200))  // Held first
            for index in 0..<calls {
                group.addTask {
                    do throws(DBusError) {
                        _ = try await fixture.call(EchoFixture.interface, "Add", [.int32(Int32(index)), .int32(1)], timeout: .seconds(60))
                        return "answered"
                    } catch {
                        return error.name
                    }
                }
            }
            var counts: [String: Int] = [:]
            for await outcome in group {
                counts[outcome, default: 0] += 1
                if counts[DBusError.Name.limitsExceeded] == refusals { fixture.stored.holding.withLock { $0 = false } }
            }
            return counts
        }
        // Pinned: the bound is 1024 with Held among them, so exactly 1023 Adds wait and 177 are refused
        // (an off-by-one, or Held let go by its own deadline instead of at the 177th refusal, fails).
        #expect(outcomes["slow"] == 1)
        #expect(outcomes[DBusError.Name.limitsExceeded, default: 0] == refusals && refusals == 177, "\(outcomes)")
        #expect(outcomes["answered", default: 0] == 1023, "\(outcomes)")
    }

    @Test func aHandlerIsCancelledOnceItsCallersStopWaiting() async throws {
        let fixture = try await EchoFixture()
        // The caller waits longer than the method says callers wait: podsd's answer is the timeout.
        do {
            _ = try await fixture.call(EchoFixture.interface, "Stuck", timeout: .seconds(50))
            Issue.record("Stuck answered")
        } catch {
            #expect(error.name == DBusError.Name.timeout, "\(error)")
        }
        #expect(fixture.stored.stuckEnded.withLock { $0 } == "cancelled")
        // The sender's next call is not held up by the minute Stuck would have taken.
        #expect(try await fixture.call(EchoFixture.interface, "Add", [.int32(2), .int32(3)], timeout: .seconds(50)) == [.int32(5)])
    }

    @Test func signalsReachSubscribers() async throws {
        let fixture = try await EchoFixture()
        let stream = try await fixture.client.signals(matching: DBusSignalMatch(path: EchoFixture.path, interface: EchoFixture.interface))
        for n in 1...3 {
            try fixture.service.emitSignal(path: EchoFixture.path, interface: EchoFixture.interface, member: "Ping", arguments: [.uint32(UInt32(n))])
        }
        var received: [DBusValue] = []
        for await signal in stream {
            received.append(contentsOf: signal.arguments)
            if received.count == 3 { break }
        }
        #expect(received == [.uint32(1), .uint32(2), .uint32(3)])
    }

    /// Any client may send a signal that matches a subscription (a
    /// notification server's, the bus's): one whose arguments hold more
    /// values than a call may is dropped unread, the next one still arrives.
    @Test func aSignalLargerThanACallMayBeIsDropped() async throws {
        let fixture = try await EchoFixture()
        let stream = try await fixture.client.signals(matching: DBusSignalMatch(path: EchoFixture.path, interface: EchoFixture.interface))
        let huge = DBusValue.array(.uint32, (0..<UInt32(70_000)).map(DBusValue.uint32))
        try fixture.service.emitSignal(path: EchoFixture.path, interface: EchoFixture.interface, member: "Huge", arguments: [huge])
        try fixture.service.emitSignal(path: EchoFixture.path, interface: EchoFixture.interface, member: "Small", arguments: [.uint32(1)])
        for await signal in stream {
            #expect(signal.member == "Small", "\(signal.member) with \(signal.arguments.count) arguments")
            break
        }
    }

    @Test func nameOwnership() async throws {
        let fixture = try await EchoFixture()
        let other = try await DBusConnection.connect(address: fixture.bus.address)
        #expect(try await other.requestName("org.pods.Test") == .exists)
        #expect(try await other.nameHasOwner("org.pods.Test"))
        #expect(try await other.nameHasOwner("org.pods.Nobody") == false)
        do {
            _ = try await other.call(destination: "org.pods.Nobody", path: .root, interface: "org.pods.X", member: "Y", autoStart: false)
            Issue.record("call to a name with no owner succeeded")
        } catch {
            #expect(error.isNoOwner)
        }
    }
}
