import PodsDBus
import PodsFeedParser
import PodsProtocol

/// Writes library items as JSON text, in a byte buffer the caller flushes
/// as it goes: every key of the item's schema, in its order, `null` for
/// one the item leaves out; dates as `2024-05-01T08:00:00Z`.
public struct ItemJSON {
    private var json = JSONWriter()

    public init() {}

    public var bytes: [UInt8] { json.bytes }

    public mutating func removeAll() { json.removeAll() }

    public mutating func raw(_ text: StaticString) { json.raw(text) }

    /// One item (an `a{sv}`) as an object.
    public mutating func item(_ value: DBusValue, _ schema: ItemSchema) {
        guard case .dictionary(_, _, let entries) = value.unwrapped else { return json.null() }
        let values = Self.values(entries, in: schema)
        json.raw("{")
        for (index, field) in schema.fields.enumerated() {
            json.key(field.name)
            guard let found = values[index] else {
                if field.form.isList { json.raw("[]") } else { json.null() }
                continue
            }
            self.value(found, field.form)
        }
        json.raw("}")
    }

    /// Items as an array.
    public mutating func items(_ values: [DBusValue], _ schema: ItemSchema) {
        json.raw("[")
        for (index, value) in values.enumerated() {
            if index > 0 { json.raw(",") }
            item(value, schema)
        }
        json.raw("]")
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

    private mutating func value(_ value: DBusValue, _ form: JSONForm) {
        switch (form, value) {
        case (.items(let schema), .array(_, let nested)): items(nested, schema)
        case (.object(let schema), .dictionary): item(value, schema)
        case (.date, _): json.string(value.int64Value.map { JSONDate.string(unixSeconds: $0) })
        case (_, .string(let text)): json.string(text)
        case (_, .bool(let flag)): json.bool(flag)
        case (_, .double(let number)): json.number(number)
        default: if let number = value.int64Value { json.integer(number) } else { json.null() }
        }
    }
}

extension JSONForm {
    var isList: Bool {
        if case .items = self { return true }
        return false
    }
}
