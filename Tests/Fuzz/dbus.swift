// libFuzzer harness: a D-Bus message as it comes off the socket, from any
// client on the bus. libdbus checks the framing (as the connection does);
// then what podsd reads of it: every argument through DBusMarshal with the
// router's value budget, and the body through DBusWireReader (what `pods`
// reads long replies with), both endians. Built by scripts/fuzz with the
// PodsDBus sources and libdbus.
internal import CDBus
import Foundation

public func fuzzDBusMessage(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 16, size <= 1 << 20,
          let message = try? DBusMessage.demarshal(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    _ = try? message.arguments(atMost: DBusRouter.maximumArgumentValues)
    if let body = try? message.body(), let types = try? DBusType.parse(body.signature) {
        var reader = body.reader()
        for type in types {
            guard (try? reader.value(of: type)) != nil else { break }
        }
    }
    return 0
}
