/// A D-Bus type, as a signature describes it.
///
/// `DBusType.parse("a{sv}")` gives `[.dictionary(key: .string, value: .variant)]`;
/// `signature` turns a type back into its signature text.
public indirect enum DBusType: Sendable, Hashable {
    case byte, bool, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature
    case unixFD
    case variant
    case array(DBusType)
    case dictionary(key: DBusType, value: DBusType)
    case structure([DBusType])

    /// The single complete type's signature, such as `"a{sv}"`.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .variant: "v"
        case .array(let element): "a" + element.signature
        case .dictionary(let key, let value): "a{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    /// Whether values of this type may be dictionary keys (basic types only).
    public var isBasic: Bool {
        switch self {
        case .variant, .array, .dictionary, .structure: false
        default: true
        }
    }

    /// Whether a value of this type, anywhere inside, carries a unix fd.
    var containsUnixFD: Bool {
        switch self {
        case .unixFD: true
        case .array(let element): element.containsUnixFD
        case .dictionary(let key, let value): key.containsUnixFD || value.containsUnixFD
        case .structure(let fields): fields.contains { $0.containsUnixFD }
        default: false
        }
    }
}

// MARK: - Parsing

extension DBusType {
    /// Parses a signature made of any number of complete types.
    ///
    /// - Throws: `DBusError.invalidSignature` for anything the D-Bus
    ///   specification does not allow (unbalanced brackets, a dictionary entry
    ///   outside an array, a container key, more than 32 levels of nesting, or
    ///   more than 255 characters).
    public static func parse(_ signature: String) throws(DBusError) -> [DBusType] {
        let bytes = Array(signature.utf8)
        guard bytes.count <= 255 else { throw .invalidSignature(signature, "longer than 255 bytes") }
        var index = 0
        var types: [DBusType] = []
        while index < bytes.count {
            types.append(try parseOne(bytes, &index, depth: 0, whole: signature))
        }
        return types
    }

    /// Parses a signature that must hold exactly one complete type.
    public static func parseSingle(_ signature: String) throws(DBusError) -> DBusType {
        let types = try parse(signature)
        guard types.count == 1, let type = types.first else {
            throw .invalidSignature(signature, "expected a single complete type")
        }
        return type
    }

    private static func parseOne(
        _ bytes: [UInt8], _ index: inout Int, depth: Int, whole: String
    ) throws(DBusError) -> DBusType {
        guard depth < 32 else { throw .invalidSignature(whole, "nested too deeply") }
        guard index < bytes.count else { throw .invalidSignature(whole, "ends in the middle of a type") }
        let code = bytes[index]
        index += 1
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .bool
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                index += 1
                let key = try parseOne(bytes, &index, depth: depth + 1, whole: whole)
                guard key.isBasic else { throw .invalidSignature(whole, "dictionary key must be a basic type") }
                let value = try parseOne(bytes, &index, depth: depth + 1, whole: whole)
                guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else {
                    throw .invalidSignature(whole, "dictionary entry needs exactly two types")
                }
                index += 1
                return .dictionary(key: key, value: value)
            }
            return .array(try parseOne(bytes, &index, depth: depth + 1, whole: whole))
        case UInt8(ascii: "("):
            var fields: [DBusType] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
                fields.append(try parseOne(bytes, &index, depth: depth + 1, whole: whole))
            }
            guard index < bytes.count else { throw .invalidSignature(whole, "unclosed structure") }
            guard !fields.isEmpty else { throw .invalidSignature(whole, "empty structure") }
            index += 1
            return .structure(fields)
        default:
            throw .invalidSignature(whole, "unexpected '\(Character(Unicode.Scalar(code)))'")
        }
    }
}

extension Array where Element == DBusType {
    /// The signature of a sequence of complete types, such as a method's arguments.
    public var signature: String { map(\.signature).joined() }
}
