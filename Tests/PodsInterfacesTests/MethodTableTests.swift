import PodsDBus
import PodsInterfaces
import PodsProtocol
import Testing

/// `org.pods.Library2` is a table built from the protocol's method list: a
/// declared method without exactly one handler, or a handler for a method
/// nobody declared, stops podsd at start instead of answering
/// `UnknownMethod` to the first client that calls it.
@Suite struct LibraryTableTests {
    private static func handler(_ method: LibraryMethod) -> DBusMethod { method.exported { _ in [] } }

    @Test func theTableFollowsTheDeclarationsOrder() throws {
        let declared = [LibraryMethod.subscribe, .unsubscribe, .refresh]
        let table = try LibraryObject.table([.refresh, .subscribe, .unsubscribe].map(Self.handler), declared: declared)
        #expect(table.map(\.name) == declared.map(\.name))
    }

    @Test func aDeclaredMethodWithoutAHandlerFails() {
        #expect(throws: LibraryObject.IncompleteTable.self) {
            try LibraryObject.table([.subscribe].map(Self.handler), declared: [.subscribe, .unsubscribe])
        }
        do {
            _ = try LibraryObject.table([.subscribe].map(Self.handler), declared: [.subscribe, .unsubscribe])
        } catch {
            #expect(error.description.contains(LibraryMethod.unsubscribe.name))
        }
    }

    @Test func twoHandlersOrAnUndeclaredOneFail() {
        #expect(throws: LibraryObject.IncompleteTable.self) {
            try LibraryObject.table([.subscribe, .subscribe].map(Self.handler), declared: [.subscribe])
        }
        #expect(throws: LibraryObject.IncompleteTable.self) {
            try LibraryObject.table([.subscribe, .refresh].map(Self.handler), declared: [.subscribe])
        }
    }
}
