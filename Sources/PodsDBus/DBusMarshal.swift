internal import CDBus

/// Converts between `DBusValue` and libdbus message iterators.
enum DBusMarshal {
    // MARK: - Appending

    static func append(_ value: DBusValue, to iter: inout DBusMessageIter) throws(DBusError) {
        let ok: Bool
        switch value {
        case .byte(let n): ok = appendBasic(n, code: "y", &iter)
        case .bool(let flag): ok = appendBasic(dbus_bool_t(flag ? 1 : 0), code: "b", &iter)
        case .int16(let n): ok = appendBasic(n, code: "n", &iter)
        case .uint16(let n): ok = appendBasic(n, code: "q", &iter)
        case .int32(let n): ok = appendBasic(n, code: "i", &iter)
        case .uint32(let n): ok = appendBasic(n, code: "u", &iter)
        case .int64(let n): ok = appendBasic(n, code: "x", &iter)
        case .uint64(let n): ok = appendBasic(n, code: "t", &iter)
        case .double(let n): ok = appendBasic(n, code: "d", &iter)
        case .string(let text): ok = appendString(text, code: "s", &iter)
        case .objectPath(let path): ok = appendString(path.rawValue, code: "o", &iter)
        case .signature(let text):
            _ = try DBusType.parse(text)  // libdbus aborts on an invalid one
            ok = appendString(text, code: "g", &iter)
        case .unixFD(let descriptor):
            ok = appendBasic(descriptor.rawValue, code: "h", &iter)  // libdbus appends a duplicate
        case .array(let element, let items):
            try checkElements(items, are: element)
            try container(code: "a", signature: element.signature, &iter) { (sub) throws(DBusError) in
                for item in items { try append(item, to: &sub) }
            }
            ok = true
        case .dictionary(let key, let valueType, let entries):
            guard key.isBasic else { throw .invalidArgs("dictionary key type must be basic") }
            let entrySignature = "{" + key.signature + valueType.signature + "}"
            try container(code: "a", signature: entrySignature, &iter) { (sub) throws(DBusError) in
                for entry in entries {
                    guard entry.key.type == key, entry.value.type == valueType else {
                        throw .invalidArgs("dictionary entry does not match \(entrySignature)")
                    }
                    try container(code: "e", signature: nil, &sub) { (pair) throws(DBusError) in
                        try append(entry.key, to: &pair)
                        try append(entry.value, to: &pair)
                    }
                }
            }
            ok = true
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidArgs("empty structure") }
            try container(code: "r", signature: nil, &iter) { (sub) throws(DBusError) in
                for field in fields { try append(field, to: &sub) }
            }
            ok = true
        case .variant(let inner):
            try container(code: "v", signature: inner.type.signature, &iter) { (sub) throws(DBusError) in
                try append(inner, to: &sub)
            }
            ok = true
        }
        guard ok else { throw .failed("could not append \(value.type.signature) (out of memory)") }
    }

    private static func checkElements(_ items: [DBusValue], are element: DBusType) throws(DBusError) {
        for item in items where item.type != element {
            throw .invalidArgs("array of \(element.signature) holds a \(item.type.signature)")
        }
    }

    private static func appendBasic<T: BitwiseCopyable>(_ value: T, code: Unicode.Scalar, _ iter: inout DBusMessageIter) -> Bool {
        var copy = value
        return dbus_message_iter_append_basic(&iter, typeCode(code), &copy) != 0
    }

    /// libdbus takes a `const char **`; a string with an embedded NUL is cut there.
    private static func appendString(_ text: String, code: Unicode.Scalar, _ iter: inout DBusMessageIter) -> Bool {
        text.withCString { cString in
            var pointer: UnsafePointer<CChar>? = cString
            return dbus_message_iter_append_basic(&iter, typeCode(code), &pointer) != 0
        }
    }

    private static func container(
        code: Unicode.Scalar, signature: String?, _ iter: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = dbus_message_iter_open_container(&iter, typeCode(code), signature, &sub) != 0
        } else {
            opened = dbus_message_iter_open_container(&iter, typeCode(code), nil, &sub) != 0
        }
        guard opened else { throw .failed("could not open container (out of memory)") }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else {
            throw .failed("could not close container (out of memory)")
        }
    }

    // MARK: - Reading

    /// Reads the value at `iter`, counting each value read against `budget`:
    /// a message holding more values than the budget allows stops with an
    /// error before they are built.
    static func read(_ iter: inout DBusMessageIter, budget: inout Int) throws(DBusError) -> DBusValue {
        budget -= 1
        guard budget >= 0 else { throw .invalidArgs("the arguments hold too many values") }
        let code = dbus_message_iter_get_arg_type(&iter)
        switch code {
        case typeCode("y"): return .byte(readBasic(&iter, as: UInt8.self))
        case typeCode("b"): return .bool(readBasic(&iter, as: dbus_bool_t.self) != 0)
        case typeCode("n"): return .int16(readBasic(&iter, as: Int16.self))
        case typeCode("q"): return .uint16(readBasic(&iter, as: UInt16.self))
        case typeCode("i"): return .int32(readBasic(&iter, as: Int32.self))
        case typeCode("u"): return .uint32(readBasic(&iter, as: UInt32.self))
        case typeCode("x"): return .int64(readBasic(&iter, as: Int64.self))
        case typeCode("t"): return .uint64(readBasic(&iter, as: UInt64.self))
        case typeCode("d"): return .double(readBasic(&iter, as: Double.self))
        case typeCode("s"): return .string(readString(&iter))
        case typeCode("g"): return .signature(readString(&iter))
        case typeCode("o"):
            let text = readString(&iter)
            guard let path = DBusObjectPath(text) else { throw .invalidArgs("invalid object path '\(text)'") }
            return .objectPath(path)
        case typeCode("h"):
            // libdbus hands out a duplicate, ours to close.
            let descriptor = readBasic(&iter, as: Int32.self)
            guard descriptor >= 0 else { throw .invalidArgs("the message carries no file descriptor where it names one") }
            return .unixFD(DBusFileDescriptor(adopting: descriptor))
        case typeCode("v"):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try read(&sub, budget: &budget))
        case typeCode("r"):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != 0 {
                fields.append(try read(&sub, budget: &budget))
                dbus_message_iter_next(&sub)
            }
            return .structure(fields)
        case typeCode("a"):
            return try readArray(&iter, budget: &budget)
        default:
            throw .invalidArgs("unexpected type code \(code)")
        }
    }

    private static func readArray(_ iter: inout DBusMessageIter, budget: inout Int) throws(DBusError) -> DBusValue {
        let signature = iteratorSignature(&iter)
        let type = try DBusType.parseSingle(signature)
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        switch type {
        case .dictionary(let keyType, let valueType):
            var entries: [DBusDictionaryEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == typeCode("e") {
                var pair = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &pair)
                let key = try read(&pair, budget: &budget)
                dbus_message_iter_next(&pair)
                let value = try read(&pair, budget: &budget)
                entries.append(DBusDictionaryEntry(key, value))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(key: keyType, value: valueType, entries)
        case .array(let element):
            if element.containsUnixFD { throw .invalidArgs("arrays of file descriptors are not taken") }
            var items: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != 0 {
                items.append(try read(&sub, budget: &budget))
                dbus_message_iter_next(&sub)
            }
            return .array(element, items)
        default:
            throw .invalidArgs("array iterator with signature '\(signature)'")
        }
    }

    private static func readBasic<T: FixedWidthInteger>(_ iter: inout DBusMessageIter, as: T.Type) -> T {
        var value = T.zero
        dbus_message_iter_get_basic(&iter, &value)
        return value
    }

    private static func readBasic(_ iter: inout DBusMessageIter, as: Double.Type) -> Double {
        var value = 0.0
        dbus_message_iter_get_basic(&iter, &value)
        return value
    }

    private static func readString(_ iter: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iter, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func iteratorSignature(_ iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }

    /// A type code as libdbus takes it (a literal such as `"y"`, folded at compile time).
    @inline(__always)
    static func typeCode(_ scalar: Unicode.Scalar) -> Int32 {
        Int32(scalar.value)
    }
}
