import Foundation
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

    // MARK: - Straight from the wire

    /// The first `page.count` items of a page, each as an object after a
    /// comma unless `first`: keys read where they lie and written in schema
    /// order, the way `item(_:_:)` writes a `DBusValue`.
    public mutating func items(_ page: ItemPage, _ schema: ItemSchema, first: inout Bool) throws(DBusError) {
        var reader = page.body.reader()
        let end = try reader.arrayEnd(elementAlignment: 4)
        var written = 0
        while reader.offset < end, written < page.count {
            if !first { json.raw(",") }
            first = false
            try item(&reader, schema)
            written += 1
        }
    }

    /// One `a{sv}` at the reader. Keys in schema order are written as read;
    /// an item with a key out of order or unknown is read again as a
    /// `DBusValue` and written by `item(_:_:)`.
    private mutating func item(_ reader: inout DBusWireReader, _ schema: ItemSchema) throws(DBusError) {
        let itemStart = reader.offset
        let jsonStart = json.bytes.count
        let end = try reader.arrayEnd(elementAlignment: 8)
        json.raw("{")
        var field = 0
        while reader.offset < end {
            try reader.align(8)
            let fields = schema.fields
            let found = try reader.withString { key in
                var index = field
                while index < fields.count, !Self.same(key, fields[index].nameUTF8) { index += 1 }
                return index < fields.count ? index : nil
            }
            guard let found else {
                json.truncate(to: jsonStart)
                try reader.move(to: itemStart)
                return item(try reader.value(of: .dictionary(key: .string, value: .variant)), schema)
            }
            while field < found { absent(fields[field]); field += 1 }
            json.key(plain: fields[found].nameUTF8)
            try variant(&reader, fields[found].form)
            field = found + 1
        }
        while field < schema.fields.count { absent(schema.fields[field]); field += 1 }
        json.raw("}")
    }

    private static func same(_ key: UnsafeBufferPointer<UInt8>, _ name: [UInt8]) -> Bool {
        guard key.count == name.count else { return false }
        return name.withUnsafeBufferPointer { name in
            guard let left = name.baseAddress, let right = key.baseAddress else { return key.isEmpty }
            return memcmp(left, right, key.count) == 0
        }
    }

    /// A key the item left out: `null`, or `[]` for a list.
    private mutating func absent(_ field: ItemField) {
        json.key(plain: field.nameUTF8)
        if field.form.isList { json.raw("[]") } else { json.null() }
    }

    /// A variant's value as `form` asks.
    private mutating func variant(_ reader: inout DBusWireReader, _ form: JSONForm) throws(DBusError) {
        // A basic type's code, or 0 and the whole signature of a container.
        let (code, signature) = try reader.withSignature { signature in
            signature.count == 1 ? (signature[0], "") : (0, String(decoding: signature, as: UTF8.self))
        }
        switch (code, form) {
        case (UInt8(ascii: "x"), .date): json.string(JSONDate.string(unixSeconds: try reader.int64()))
        case (UInt8(ascii: "s"), _), (UInt8(ascii: "o"), _): try reader.withString { json.string(utf8: $0) }
        case (UInt8(ascii: "b"), _): json.bool(try reader.bool())
        case (UInt8(ascii: "d"), _): json.number(try reader.double())
        case (UInt8(ascii: "x"), _): json.integer(try reader.int64())
        case (UInt8(ascii: "i"), _): json.integer(Int64(try reader.int32()))
        case (UInt8(ascii: "u"), _): json.integer(Int64(try reader.uint32()))
        case (UInt8(ascii: "n"), _): json.integer(Int64(try reader.int16()))
        case (UInt8(ascii: "q"), _): json.integer(Int64(try reader.uint16()))
        case (UInt8(ascii: "y"), _): json.integer(Int64(try reader.byte()))
        default:
            // Nested items and anything rarer: read as a `DBusValue`, written as `item(_:_:)` writes it.
            let type = code == 0 ? try DBusType.parseSingle(signature) : try DBusType.parseSingle(String(UnicodeScalar(code)))
            value(try reader.value(of: type), form)
        }
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
