import PodsDBus
import PodsFeedParser
import PodsProtocol

/// Writes library items as JSON text, in a byte buffer the caller flushes
/// as it goes: every key of the item's schema, in its order, `null` for
/// one the item leaves out; dates as `2024-05-01T08:00:00Z`.
public struct ItemJSON {
    public private(set) var bytes: [UInt8] = []

    public init() { bytes.reserveCapacity(1 << 16) }

    public mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    public mutating func raw(_ text: String) { bytes += text.utf8 }

    /// One item (an `a{sv}`) as an object.
    public mutating func item(_ value: DBusValue, _ schema: ItemSchema) {
        guard case .dictionary(_, _, let entries) = value.unwrapped else { return raw("null") }
        bytes.append(UInt8(ascii: "{"))
        let values = Self.values(entries, in: schema)
        for (index, field) in schema.fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(field.name)
            bytes.append(UInt8(ascii: ":"))
            guard let found = values[index] else {
                raw(field.form.isList ? "[]" : "null")
                continue
            }
            self.value(found, field.form)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Each schema field's value (nil: left out). podsd sends the keys it
    /// has in schema order, so one walk places them; keys in another order,
    /// or keys the schema does not know, fall back to a lookup.
    private static func values(_ entries: [DBusDictionaryEntry], in schema: ItemSchema) -> [DBusValue?] {
        var values = [DBusValue?](repeating: nil, count: schema.fields.count)
        var field = 0
        for entry in entries {
            let key = entry.key.stringValue
            while field < schema.fields.count, schema.fields[field].name != key { field += 1 }
            guard field < schema.fields.count else {
                var lookup: [String: DBusValue] = [:]
                for entry in entries { if let key = entry.key.stringValue { lookup[key] = entry.value.unwrapped } }
                return schema.fields.map { lookup[$0.name] }
            }
            values[field] = entry.value.unwrapped
            field += 1
        }
        return values
    }

    /// Items as an array.
    public mutating func items(_ values: [DBusValue], _ schema: ItemSchema) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            item(value, schema)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func value(_ value: DBusValue, _ form: JSONForm) {
        switch (form, value) {
        case (.items(let schema), .array(_, let nested)): items(nested, schema)
        case (.date, _): if let seconds = value.int64Value { string(JSONDate.string(unixSeconds: seconds)) } else { raw("null") }
        case (_, .string(let text)): string(text)
        case (_, .bool(let flag)): raw(flag ? "true" : "false")
        case (_, .double(let number)): raw(Self.number(number))
        default: if let number = value.int64Value { raw(String(number)) } else { raw("null") }
        }
    }

    // MARK: - Scalars

    /// A JSON string, escaped as RFC 8259 asks (and no more: `/` and non-ASCII stay as they are).
    public mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
                case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whole numbers without a fraction (`36`, not `36.0`); `null` for NaN and infinities.
    static func number(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }
}

extension JSONForm {
    var isList: Bool {
        if case .items = self { return true }
        return false
    }
}
