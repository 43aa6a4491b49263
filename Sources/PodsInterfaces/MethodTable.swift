import PodsDBus
import PodsProtocol

/// An interface's methods as a table checked against its declaration in
/// `PodsProtocol`: every declared method has exactly one handler and no
/// handler answers a method nobody declared, or podsd stops at start
/// instead of answering `UnknownMethod` to the first client that calls it.
package enum MethodTable {
    /// A declared method without a handler, or a handler for no declared method.
    package struct Incomplete: Error, CustomStringConvertible {
        package var description: String
    }

    /// `handlers` in the order of `declared` (introspection's), one each.
    package static func build<Interface>(_ handlers: [DBusMethod], declared: [InterfaceMethod<Interface>],
                                         interface: String) throws(Incomplete) -> [DBusMethod] {
        let byName = Dictionary(grouping: handlers, by: \.name)
        let names = Set(declared.map(\.name))
        let missing = declared.map(\.name).filter { byName[$0]?.count != 1 }
        let undeclared = byName.keys.filter { !names.contains($0) }.sorted()
        guard missing.isEmpty, undeclared.isEmpty else {
            throw Incomplete(description: "\(interface): no single handler for \(missing.joined(separator: ", "))"
                             + (undeclared.isEmpty ? "" : "; handlers for undeclared \(undeclared.joined(separator: ", "))"))
        }
        return declared.compactMap { byName[$0.name]?.first }
    }
}
