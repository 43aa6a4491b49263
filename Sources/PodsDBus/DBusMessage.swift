internal import CDBus
import Synchronization

/// One owned reference to a libdbus message.
///
/// Received messages stay on the connection's loop thread; messages built
/// elsewhere reach it through `MessageHandoff`.
final class DBusMessage {
    let pointer: OpaquePointer

    /// Takes over a reference the caller owns.
    init(adopting pointer: OpaquePointer) { self.pointer = pointer }

    /// Adds a reference of its own.
    init(retaining pointer: OpaquePointer) {
        dbus_message_ref(pointer)
        self.pointer = pointer
    }

    deinit { dbus_message_unref(pointer) }

    // MARK: - Creating

    static func methodCall(
        destination: String?, path: DBusObjectPath, interface: String?, member: String
    ) throws(DBusError) -> DBusMessage {
        try validateNames(interface: interface, member: member, busName: destination)
        guard let message = dbus_message_new_method_call(destination, path.rawValue, interface, member) else {
            throw .failed("out of memory")
        }
        return DBusMessage(adopting: message)
    }

    static func signal(path: DBusObjectPath, interface: String, member: String) throws(DBusError) -> DBusMessage {
        try validateNames(interface: interface, member: member, busName: nil)
        guard let message = dbus_message_new_signal(path.rawValue, interface, member) else {
            throw .failed("out of memory")
        }
        return DBusMessage(adopting: message)
    }

    func methodReturn() -> DBusMessage? {
        dbus_message_new_method_return(pointer).map(DBusMessage.init(adopting:))
    }

    /// The method return for the call with `serial` from `sender`, holding
    /// `body`: the header is written here and libdbus reads the whole
    /// message back (`dbus_message_demarshal`), checking every byte.
    static func methodReturn(toSerial serial: UInt32, sender: String?, body: DBusWireBody) throws(DBusError) -> DBusMessage {
        var header = DBusWireWriter(capacity: 64 + body.bytes.count)
        for byte in [UInt8(ascii: "l"), UInt8(DBUS_MESSAGE_TYPE_METHOD_RETURN), 0, 1] { header.byte(byte) }
        header.uint32(UInt32(body.bytes.count))
        header.uint32(ownSerials.next())
        let fields = header.beginArray(elementAlignment: 8)
        header.beginStruct()
        header.byte(UInt8(DBUS_HEADER_FIELD_REPLY_SERIAL))
        header.signature("u")
        header.uint32(serial)
        if let sender {
            header.beginStruct()
            header.byte(UInt8(DBUS_HEADER_FIELD_DESTINATION))
            header.signature("s")
            header.string(sender)
        }
        if !body.signature.isEmpty {
            header.beginStruct()
            header.byte(UInt8(DBUS_HEADER_FIELD_SIGNATURE))
            header.signature("g")
            header.signature(text: body.signature)
        }
        header.endArray(fields)
        header.align(8)
        header.raw(body.bytes)
        return try header.bytes.withUnsafeBufferPointer { bytes throws(DBusError) in try demarshal(bytes) }
    }

    /// A whole message in the wire format, as it comes off a socket: libdbus
    /// checks its framing and every byte (`dbus_message_demarshal`).
    static func demarshal(_ bytes: UnsafeBufferPointer<UInt8>) throws(DBusError) -> DBusMessage {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        let made = bytes.withMemoryRebound(to: CChar.self) { dbus_message_demarshal($0.baseAddress, Int32(clamping: $0.count), &error) }
        guard let made else { throw DBusEventLoop.take(&error) }
        return DBusMessage(adopting: made)
    }

    /// Serials for replies made by `methodReturn(toSerial:sender:body:)`:
    /// from the top of the range down, so they never meet the ones libdbus
    /// counts up from 1 for this connection's own messages (a method
    /// return's serial is never answered, but stays unique all the same).
    private static let ownSerials = ReplySerials()

    var serial: UInt32 { dbus_message_get_serial(pointer) }

    func errorReply(_ error: DBusError) -> DBusMessage? {
        let name = DBusNames.isValidInterface(error.name) ? error.name : DBusError.Name.failed
        return dbus_message_new_error(pointer, name, error.message).map(DBusMessage.init(adopting:))
    }

    /// libdbus aborts on invalid names, so they are checked here first.
    private static func validateNames(interface: String?, member: String, busName: String?) throws(DBusError) {
        if let interface, !DBusNames.isValidInterface(interface) {
            throw .invalidArgs("invalid interface name '\(interface)'")
        }
        guard DBusNames.isValidMember(member) else { throw .invalidArgs("invalid member name '\(member)'") }
        if let busName, !DBusNames.isValidBusName(busName) {
            throw .invalidArgs("invalid bus name '\(busName)'")
        }
    }

    // MARK: - Header fields

    var type: Int32 { dbus_message_get_type(pointer) }
    var path: String? { dbus_message_get_path(pointer).map { String(cString: $0) } }
    var interface: String? { dbus_message_get_interface(pointer).map { String(cString: $0) } }
    var member: String? { dbus_message_get_member(pointer).map { String(cString: $0) } }
    var sender: String? { dbus_message_get_sender(pointer).map { String(cString: $0) } }
    var destination: String? { dbus_message_get_destination(pointer).map { String(cString: $0) } }
    var errorName: String? { dbus_message_get_error_name(pointer).map { String(cString: $0) } }
    var signature: String { dbus_message_get_signature(pointer).map { String(cString: $0) } ?? "" }
    var expectsReply: Bool { dbus_message_get_no_reply(pointer) == 0 }

    func setNoAutoStart() { dbus_message_set_auto_start(pointer, 0) }

    func setNoReply() { dbus_message_set_no_reply(pointer, 1) }

    // MARK: - Body

    func append(_ values: [DBusValue]) throws(DBusError) {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(pointer, &iter)
        for value in values {
            try DBusMarshal.append(value, to: &iter)
        }
    }

    /// The body's bytes, copied out of the whole message libdbus marshals
    /// (the header's length says where the body starts).
    func body() throws(DBusError) -> DBusReplyBody {
        var data: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(pointer, &data, &length) != 0, let data else { throw .failed("out of memory") }
        defer { dbus_free(data) }
        let whole = UnsafeRawBufferPointer(start: data, count: Int(length))
        guard whole.count >= 16 else { throw .invalidArgs("a message shorter than its header") }
        let bigEndian = whole[0] == UInt8(ascii: "B")
        func uint32(at offset: Int) -> Int {
            let b = (0..<4).map { UInt32(whole[offset + $0]) }
            return Int(bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0])
        }
        let bodyLength = uint32(at: 4)
        let start = (16 + uint32(at: 12) + 7) & ~7
        guard start <= whole.count, bodyLength <= whole.count - start else { throw .invalidArgs("a message shorter than its header says") }
        return DBusReplyBody(signature: signature, bytes: Array(whole[start..<start + bodyLength]), bigEndian: bigEndian)
    }

    /// Reads every argument. Unix fds are refused, not read.
    func arguments(atMost limit: Int = .max) throws(DBusError) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(pointer, &iter) != 0 else { return [] }
        var values: [DBusValue] = []
        var budget = limit
        repeat {
            values.append(try DBusMarshal.read(&iter, budget: &budget))
        } while dbus_message_iter_next(&iter) != 0
        return values
    }
}

/// Serials counting down from `UInt32.max`, skipping 0.
private final class ReplySerials: Sendable {
    private let last = Mutex<UInt32>(0)

    func next() -> UInt32 {
        last.withLock { last in
            last = last <= 1 ? UInt32.max : last - 1
            return last
        }
    }
}

/// A reply's body as it came over the bus, with its signature: read it
/// with a `DBusWireReader`.
public struct DBusReplyBody: Sendable {
    public let signature: String
    public let bytes: [UInt8]
    public let bigEndian: Bool

    /// A body of `signature` in `bytes` (as a stream brings it, `DBusBodyStream`).
    public init(signature: String, bytes: [UInt8], bigEndian: Bool = false) {
        self.signature = signature
        self.bytes = bytes
        self.bigEndian = bigEndian
    }

    /// A reader at the body's first value.
    public func reader() -> DBusWireReader { DBusWireReader(body: bytes, bigEndian: bigEndian) }
}

/// Hands a message built on a caller's thread to the loop thread for sending.
///
/// @unchecked Sendable, proven: the building thread does not touch the
/// message after handing it over, except to drop its reference; libdbus
/// reference counts are atomic, and a message built here carries no
/// connection counters until the loop thread queues it, so the last unref
/// is safe on either thread.
struct MessageHandoff: @unchecked Sendable {
    let message: DBusMessage
}
