/// A typed D-Bus value.
///
/// Containers carry their element types so that empty arrays and
/// dictionaries still have a signature.
public enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(DBusObjectPath)
    case signature(String)
    /// A file descriptor, passed beside the message (`h`).
    case unixFD(DBusFileDescriptor)
    case array(DBusType, [DBusValue])
    case dictionary(key: DBusType, value: DBusType, [DBusDictionaryEntry])
    case structure([DBusValue])
    indirect case variant(DBusValue)

    /// The value's complete type.
    public var type: DBusType {
        switch self {
        case .byte: .byte
        case .bool: .bool
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .unixFD: .unixFD
        case .array(let element, _): .array(element)
        case .dictionary(let key, let value, _): .dictionary(key: key, value: value)
        case .structure(let fields): .structure(fields.map(\.type))
        case .variant: .variant
        }
    }
}

/// One key–value pair of a D-Bus dictionary.
public struct DBusDictionaryEntry: Sendable, Hashable {
    public var key: DBusValue
    public var value: DBusValue

    public init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}

// MARK: - Building

extension DBusValue {
    /// An `as` array.
    public static func stringArray(_ strings: [String]) -> DBusValue {
        .array(.string, strings.map(DBusValue.string))
    }

    /// An `a{sv}` dictionary; each value is wrapped in a variant. Keys are
    /// sorted so that equal dictionaries marshal identically.
    public static func variantDictionary(_ entries: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: .string, value: .variant,
            entries.sorted { $0.key < $1.key }.map { DBusDictionaryEntry(.string($0.key), .variant($0.value)) })
    }
}

// MARK: - Reading

extension DBusValue {
    /// The value inside any number of variants.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var stringValue: String? {
        switch unwrapped {
        case .string(let text), .signature(let text): text
        case .objectPath(let path): path.rawValue
        default: nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let flag) = unwrapped { return flag }
        return nil
    }

    public var doubleValue: Double? {
        if case .double(let number) = unwrapped { return number }
        return nil
    }

    /// Any integer type widened to `Int64` (a `uint64` above `Int64.max` gives nil).
    public var int64Value: Int64? {
        switch unwrapped {
        case .byte(let n): Int64(n)
        case .int16(let n): Int64(n)
        case .uint16(let n): Int64(n)
        case .int32(let n): Int64(n)
        case .uint32(let n): Int64(n)
        case .int64(let n): n
        case .uint64(let n): Int64(exactly: n)
        default: nil
        }
    }

    public var objectPathValue: DBusObjectPath? {
        if case .objectPath(let path) = unwrapped { return path }
        return nil
    }

    public var arrayValue: [DBusValue]? {
        if case .array(_, let items) = unwrapped { return items }
        return nil
    }

    public var stringArrayValue: [String]? {
        arrayValue?.compactMap(\.stringValue)
    }

    /// A dictionary with string keys (such as `a{sv}`), values unwrapped
    /// from their variants.
    public var stringKeyedDictionary: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = unwrapped else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.stringValue else { return nil }
            result[key] = entry.value.unwrapped
        }
        return result
    }
}

// MARK: - Size

extension DBusValue {
    /// About how many bytes the value takes marshalled: exact for strings,
    /// with alignment padding counted at its worst. Used to bound replies.
    public var marshalledSizeEstimate: Int {
        switch self {
        case .byte: 1
        case .bool, .int16, .uint16, .int32, .uint32, .unixFD: 4
        case .int64, .uint64, .double: 8
        case .string(let text), .signature(let text): text.utf8.count + 5
        case .objectPath(let path): path.rawValue.utf8.count + 5
        case .array(_, let items): 8 + items.reduce(0) { $0 + $1.marshalledSizeEstimate }
        case .dictionary(_, _, let entries):
            8 + entries.reduce(0) { $0 + 8 + $1.key.marshalledSizeEstimate + $1.value.marshalledSizeEstimate }
        case .structure(let fields): 8 + fields.reduce(0) { $0 + $1.marshalledSizeEstimate }
        // The signature of a basic type takes 3 bytes, of a container a few more; 16 covers those Pods sends.
        case .variant(let inner): (inner.type.isBasic ? 8 : 16) + inner.marshalledSizeEstimate
        }
    }
}
