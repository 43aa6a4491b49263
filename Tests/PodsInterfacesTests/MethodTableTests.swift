import PodsDBus
import PodsInterfaces
import PodsProtocol
import Testing

/// Each interface is a table built from the protocol's method list (here
/// `org.pods.Library2`'s): a declared method without exactly one handler,
/// or a handler for a method nobody declared, stops podsd at start instead
/// of answering `UnknownMethod` to the first client that calls it.
@Suite struct MethodTableTests {
    private static func handler(_ method: LibraryMethod) -> DBusMethod { method.exported { _ in [] } }

    @Test func theTableFollowsTheDeclarationsOrder() throws {
        let declared = [LibraryMethod.subscribe, .unsubscribe, .refresh]
        let table = try MethodTable.build([.refresh, .subscribe, .unsubscribe].map(Self.handler), declared: declared, interface: "org.pods.Library2")
        #expect(table.map(\.name) == declared.map(\.name))
    }

    @Test func aDeclaredMethodWithoutAHandlerFails() {
        #expect(throws: MethodTable.Incomplete.self) {
            try MethodTable.build([.subscribe].map(Self.handler), declared: [.subscribe, .unsubscribe], interface: "org.pods.Library2")
        }
        do {
            _ = try MethodTable.build([.subscribe].map(Self.handler), declared: [.subscribe, .unsubscribe], interface: "org.pods.Library2")
        } catch {
            #expect(error.description.contains(LibraryMethod.unsubscribe.name))
        }
    }

    @Test func twoHandlersOrAnUndeclaredOneFail() {
        #expect(throws: MethodTable.Incomplete.self) {
            try MethodTable.build([.subscribe, .subscribe].map(Self.handler), declared: [.subscribe], interface: "org.pods.Library2")
        }
        #expect(throws: MethodTable.Incomplete.self) {
            try MethodTable.build([.subscribe, .refresh].map(Self.handler), declared: [.subscribe], interface: "org.pods.Library2")
        }
    }
}
